"""The command line over a hostile corpus and hostile arguments (issue 24):
no traceback, no action taken on a hostile value, secrets masked in JSON, one
line for every refusal."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.holder.access import open_local
from convo_tui.core.library import Library
from convo_tui.core.settings import DEFAULT_MODEL, Settings
from convo_tui.core.unicode import CONTROL_CHARACTER
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers.hostile import SEQUENCES
from tests.helpers.hostile_corpus import CUT_EMOJI_SESSION, ESCAPED_FOLDER, TOKEN, write_hostile_corpus
from tests.helpers.index_copy import copy_index
from tests.paths import ROOT
from tests.unit.test_hostile_values import NUMBERS, QUERIES


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Iterator[tuple[Path, Path]]:
    """(corpus, index) built by `convo-tui index` itself."""
    root = tmp_path_factory.mktemp("hostile-cli")
    corpus = write_hostile_corpus(root / "corpus")
    index = root / "index"
    with Library.open(Settings(index_dir=index, model=DEFAULT_MODEL)) as library:
        library.index([corpus])
    yield corpus, index
    assert not any(root.rglob("pwned*")) and not (Path.cwd() / "pwned").exists()
    shutil.rmtree(root, ignore_errors=True)


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_indexing_the_hostile_corpus_tells_every_problem_in_one_line(hostile, capsys):
    corpus, index = hostile
    code, out, err = _run(capsys, "index", "--rebuild", str(corpus), "--index-dir", str(index))
    assert code == 3 and "Traceback" not in out + err  # 3: done, some files skipped (each named)
    skipped = [line for line in out.splitlines() if line.strip().startswith("skipped ")]
    assert all(line.count(": ") >= 1 for line in skipped)
    for told in ("named pipe): not read", "named pipe, through a link): not read", "binary file"):
        assert told in out, told
    assert any("deep" in line for line in skipped)  # deep JSON: refused in one line, never a RecursionError
    code, out, err = _run(capsys, "sessions", "--json", "--index-dir", str(index))
    assert code == 0 and "Traceback" not in err
    sessions = [json.loads(line) for line in out.splitlines()]
    ids = {s["id"] for s in sessions}
    assert {"--dangerously-skip-permissions", "-rf", "; rm -rf ~"} <= ids  # data, listed as data
    # Half of an emoji (a lone "\\ud83d" in the JSON) is indexed, found and shown as U+FFFD.
    code, out, err = _run(capsys, "search", "emoji cut in half", "--mode", "keyword", "--json", "--index-dir", str(index))
    assert code == 0 and err == "" and json.loads(out.splitlines()[0])["session_id"] == CUT_EMOJI_SESSION
    code, out, err = _run(capsys, "show", CUT_EMOJI_SESSION, "--index-dir", str(index))
    assert code == 0 and "an emoji cut in half \ufffd here" in out
    # A query byte that is not UTF-8 (argv's "\udcff") is searched around, in every mode.
    for mode in ("keyword", "hybrid", "semantic"):
        code, out, err = _run(capsys, "search", "emoji\udcffcut in half", "--mode", mode, "--json", "--index-dir", str(index))
        assert code == 0 and err == "" and out, mode


def test_terminal_control_in_transcripts_and_names_never_reaches_the_terminal(hostile, capsys):
    """`show`, `search` and `sessions` printed a transcript's escapes as they were."""
    corpus, index = hostile
    transcript = next(corpus.rglob("hostile.jsonl"))
    outputs = [
        _run(capsys, "search", "why does the build fail", "--mode", "keyword", "--index-dir", str(index)),
        _run(capsys, "sessions", "--index-dir", str(index)),
        _run(capsys, "show", "hostile-1", "--index-dir", str(index)),
        _run(capsys, "show", str(transcript)),
        _run(capsys, "stats", "--index-dir", str(index)),
        _run(capsys, "export", "hostile-1", "--format", "md", "--index-dir", str(index)),
        _run(capsys, "session", "star", "hostile-1", "--index-dir", str(index)),
        _run(capsys, "session", "unstar", "hostile-1", "--index-dir", str(index)),
    ]
    for code, out, err in outputs:
        assert code == 0 and "Traceback" not in err
        assert not [seq for seq in SEQUENCES if seq in out + err], out
        assert not CONTROL_CHARACTER.search(out.replace("\n", "").replace("\t", "") + err.replace("\n", "")), out
    assert "why does the build fail?" in outputs[0][1] and "Bash(command=pytest -q)" in outputs[2][1]
    assert "proj\\x1b]0;DIR\\x07\\x9b" in outputs[3][1]  # the folder, written out: recognisable, not obeyed


def test_json_output_escapes_every_control_and_keeps_the_value(hostile, capsys):
    """JSON escapes C0 controls, but `ensure_ascii=False` left DEL and C1 (U+009B, CSI
    to an 8-bit terminal) raw: a folder's name reached the terminal as it was."""
    _corpus, index = hostile
    outputs = [
        _run(capsys, "sessions", "--json", "--index-dir", str(index)),
        _run(capsys, "search", "why does the build fail", "--mode", "keyword", "--json", "--index-dir", str(index)),
        _run(capsys, "show", "hostile-1", "--json", "--index-dir", str(index)),
    ]
    for code, out, err in outputs:
        assert code == 0 and err == ""
        assert not CONTROL_CHARACTER.search(out.replace("\n", "")), out
        assert "\\u009b" in out
    code, out, err = _run(capsys, "stats", "--json", "--index-dir", str(index))  # projects' names
    assert code == 0 and not CONTROL_CHARACTER.search(out.replace("\n", "")), out
    paths = [json.loads(line)["path"] for line in outputs[0][1].splitlines()]
    assert any(f"-home-dev-{ESCAPED_FOLDER}" in path for path in paths)  # the folder itself, to a parser


def test_json_output_masks_titles_as_the_text_does(hostile, capsys):
    _corpus, index = hostile
    code, out, _err = _run(capsys, "sessions", "--json", "--index-dir", str(index))
    titles = [json.loads(line)["title"] for line in out.splitlines()]
    assert code == 0 and any(
        title.startswith("deploy with [REDACTED:github-token") for title in titles
    )  # the kind of secret, masked
    assert not any(TOKEN in title for title in titles)
    code, out, _err = _run(capsys, "search", "--json", "--mode", "keyword", "Sorting rows", "--index-dir", str(index))
    titles = [json.loads(line)["session_title"] for line in out.splitlines()]
    assert code == 0 and titles and any(title.startswith("deploy with [REDACTED:github-token") for title in titles)
    assert not any(TOKEN in title for title in titles)
    code, out, _err = _run(capsys, "search", "--mode", "keyword", "Sorting rows", "--index-dir", str(index))
    assert "deploy with [REDACTED:github-token" in out and TOKEN not in out.splitlines()[0]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(QUERIES, NUMBERS, st.sampled_from(["keyword", "fuzzy", "hybrid"]))
def test_no_query_or_limit_gets_a_traceback(hostile, capsys, query, limit, mode):
    _corpus, index = hostile
    code, _out, err = _run(
        capsys, "search", "--json", "--mode", mode, "--limit", str(limit), "--index-dir", str(index), "--", query
    )
    assert code in (0, 1) and "Traceback" not in err
    if code == 1:
        assert err.count("\n") == 1 and err.startswith("convo-tui: ")


def test_the_issues_numbers(hostile, capsys):
    _corpus, index = hostile
    # 99,999 years ago is before the epoch (0.0): a filter all sessions pass, the newest listed.
    code, out, err = _run(capsys, "search", "--index-dir", str(index), "--", "after:99999y")
    assert code == 0 and err == "" and out
    code, _out, err = _run(capsys, "search", "--limit", "99999999999999999999", "--index-dir", str(index), "x")
    assert code == 1 and err == "convo-tui: --limit must be a whole number from 1 to 100,000 (got 99999999999999999999)\n"
    config = index.parent / "config.toml"
    config.write_text("search_limit = 99999999999999999999999\n", encoding="utf-8")
    code, _out, err = _run(capsys, "--config", str(config), "search", "--index-dir", str(index), "x")
    assert code == 1 and err.count("\n") == 1 and "'search_limit' must be a whole number from 1 to 100,000" in err
    code, _out, err = _run(capsys, "--config", str(index.parent / "missing.toml"), "sessions", "--index-dir", str(index))
    assert code == 1 and "no such settings file" in err


def _serve(index: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "convo_tui.cli.main", "serve", "--no-watch", "--index-dir", str(index)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_serve_refuses_an_index_another_process_holds(hostile, tmp_path):
    _corpus, built = hostile
    index = copy_index(built, tmp_path / "index")
    with open_local(Settings(index_dir=index)):  # a holder that serves
        done = _serve(index)
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "is already served by pid" in done.stderr
    with Library.open(Settings(index_dir=index)):  # a process that holds the lock and serves nobody
        done = _serve(index)
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "in use by" in done.stderr


def test_a_damaged_vector_cache_is_said(hostile, tmp_path, capsys):
    corpus, built = hostile
    index = copy_index(built, tmp_path / "index")
    (index / "vectors.sqlite").write_bytes(b"this is not a database" * 100)
    code, _out, err = _run(capsys, "index", str(corpus), "--index-dir", str(index))
    assert code == 3 and "Traceback" not in err
    said = [line for line in err.splitlines() if "vectors.sqlite" in line]
    assert len(said) == 1 and "was damaged" in said[0] and "started afresh" in said[0]


def _can_mount() -> bool:
    if not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount --bind /tmp /tmp"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(sys.platform != "linux" or not _can_mount(), reason="a read-only bind mount needs Linux and CAP_SYS_ADMIN")
def test_a_read_only_index_folder_can_still_be_searched(hostile, tmp_path):
    corpus, built = hostile
    folder = tmp_path / "ro"
    index = copy_index(built, folder / "index")
    python = f"{sys.executable} -m convo_tui.cli.main"
    script = (
        f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} {folder} && "
        f"{python} search --mode keyword 'a folder with a newline' --index-dir {index} && "
        f"{python} sessions --index-dir {index} && "
        f"{python} index {corpus} --index-dir {index}"
    )
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp)}
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert "a folder with a newline" in done.stdout, done.stderr  # search and sessions read it
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "Read-only file system" in done.stderr  # writing is refused
    assert not list(temp.iterdir())  # the private copy it read from is gone
