"""A damaged index is noticed at open (one line naming the way out) and `index`
repairs what it can: each case the issue found, done to a real index."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings
from convo_tui.core.store.base import Cond, Filter

from tests.paths import FIXTURES

CLAUDE = "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b"


@pytest.fixture
def built(tmp_path, capsys):
    """(index dir, source folder) with 3 sessions from two files."""
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(FIXTURES / "chatgpt" / "conversations.json", src)
    shutil.copy(FIXTURES / "claude_code" / f"{CLAUDE}.jsonl", src)
    index_dir = tmp_path / "index"
    assert main(["--index-dir", str(index_dir), "index", str(src)]) == 0
    capsys.readouterr()
    return index_dir, src


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _read_commands(index_dir: Path) -> list[list[str]]:
    return [["--index-dir", str(index_dir), "sessions"], ["--index-dir", str(index_dir), "search", "flaky login"]]


def _one_line(err: str, *words: str) -> None:
    assert err.count("\n") == 1 and err.startswith("convo-tui: "), err
    for word in words:
        assert word in err, err


def test_shard_folder_removed_is_named_and_index_republishes_everything(built, capsys):
    index_dir, src = built
    shutil.rmtree(index_dir / "shard")
    for argv in _read_commands(index_dir):
        code, _out, err = _run(capsys, *argv)
        assert code == 1
        _one_line(err, "lost its store", "convo-tui index --rebuild")
    code, out, _err = _run(capsys, "--index-dir", str(index_dir), "index", str(src))
    assert code == 0
    assert out.startswith("sessions: 3 added, 0 updated, 0 unchanged"), out  # not "3 unchanged"
    code, out, _err = _run(capsys, "--index-dir", str(index_dir), "sessions")
    assert code == 0 and out.count("\n    ") == 3


def test_sessions_the_store_lost_are_named_and_reindexed(built, capsys):
    index_dir, src = built
    with Library.open(Settings(index_dir=index_dir)) as lib:  # damage behind the manifest's back
        lib.store.delete(Filter(must=(Cond("session_id", value=CLAUDE),)))
    code, _out, err = _run(capsys, "--index-dir", str(index_dir), "sessions")
    assert code == 1
    _one_line(err, "lost 1 of 3 sessions", "convo-tui index")
    code, out, _err = _run(capsys, "--index-dir", str(index_dir), "index", str(src))
    assert code == 0 and out.startswith("sessions: 1 added, 0 updated, 2 unchanged"), out
    code, out, _err = _run(capsys, "--index-dir", str(index_dir), "search", "flaky login")
    assert code == 0 and CLAUDE in out


def test_a_changed_file_whose_sessions_left_the_store_is_not_damage(built, capsys):
    """A run killed between publishing a file's new version and saving the
    manifest leaves the old entry naming sessions the store dropped."""
    index_dir, src = built
    with Library.open(Settings(index_dir=index_dir)) as lib:
        lib.store.delete(Filter(must=(Cond("session_id", value=CLAUDE),)))
    with open(src / f"{CLAUDE}.jsonl", "a", encoding="utf-8") as handle:
        handle.write("\n")
    code, _out, err = _run(capsys, "--index-dir", str(index_dir), "sessions")
    assert code == 0, err


def _named_by_every_command_then_rebuilt(capsys, index_dir: Path, src: Path, words: str) -> None:
    """Reads and `index` fail in one line naming the damage; `index --rebuild` succeeds."""
    for argv in [*_read_commands(index_dir), ["--index-dir", str(index_dir), "index", str(src)]]:
        code, _out, err = _run(capsys, *argv)
        assert code == 1
        _one_line(err, "is damaged", words, "convo-tui index --rebuild")
    code, _out, err = _run(capsys, "--index-dir", str(index_dir), "index", "--rebuild", str(src))
    assert code == 0, err


def test_dense_folder_removed_is_named_as_damage_and_rebuild_fixes_it(built, capsys):
    """Without dense/, meaning search would find nothing while every text says it is embedded."""
    index_dir, src = built
    shutil.rmtree(index_dir / "dense")
    _named_by_every_command_then_rebuilt(capsys, index_dir, src, "dense/edge_config.json is missing")
    code, out, _err = _run(capsys, "--index-dir", str(index_dir), "search", "--mode", "semantic", "flaky login test")
    assert code == 0 and "flaky login" in out.lower(), out


def test_truncated_vector_files_are_named_at_open_and_rebuild_fixes_them(built, capsys):
    index_dir, src = built
    chunks = list((index_dir / "dense").glob("segments/*/vector_storage-dense/vectors/chunk_*.mmap"))
    assert chunks
    for chunk in chunks:
        with open(chunk, "r+b") as handle:
            handle.truncate(384 * 4 * 2)  # two whole vectors: still a multiple of the row size
    _named_by_every_command_then_rebuilt(capsys, index_dir, src, "cut short")
    code, out, _err = _run(capsys, "--index-dir", str(index_dir), "search", "flaky login")
    assert code == 0 and CLAUDE in out


def test_a_changed_dimension_in_meta_is_named(built, capsys):
    index_dir, src = built
    meta = json.loads((index_dir / "meta.json").read_text(encoding="utf-8"))
    meta["dim"] = 512
    (index_dir / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    for argv in [*_read_commands(index_dir), ["--index-dir", str(index_dir), "index", str(src)]]:
        code, _out, err = _run(capsys, *argv)
        assert code == 1
        _one_line(err, "512-dimension", "holds 384", "convo-tui index --rebuild")
    code, _out, err = _run(capsys, "--index-dir", str(index_dir), "index", "--rebuild", str(src))
    assert code == 0, err
    assert _run(capsys, "--index-dir", str(index_dir), "sessions")[0] == 0


def test_an_index_path_that_is_a_file_is_one_line(tmp_path, capsys):
    path = tmp_path / "index"
    path.write_text("not a folder", encoding="utf-8")
    for argv in (["sessions"], ["search", "x"], ["index", str(FIXTURES / "chatgpt" / "conversations.json")]):
        code, _out, err = _run(capsys, "--index-dir", str(path), *argv)
        assert code == 1
        _one_line(err, "is a file, not a folder")
    assert path.read_text(encoding="utf-8") == "not a folder"
    with pytest.raises(IndexUnavailable):
        Library.open(Settings(index_dir=path), allow_mismatch=True)
