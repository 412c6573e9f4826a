"""A full disk: one line naming the free space, the index left as it was, no crash.

Qdrant Edge writes through memory-mapped sparse files, so a full disk used to
kill every command with SIGBUS ("Bus error", exit 135), read-only ones too.
Always-run tests simulate it (the free-space probe reporting little room, Edge
raising its ENOSPC error mid-run, the manifest write failing); one more test
fills a real small tmpfs when this machine lets us mount one (root on Linux),
running the CLI in subprocesses since a SIGBUS would kill pytest itself.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.errors import DiskFull
from convo_tui.core.index.manifest import Manifest
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings
from convo_tui.core.store import space

from tests.helpers.cli_output import problems
from tests.paths import FIXTURES

MB = 1 << 20


@pytest.fixture
def corpus(tmp_path):
    """Good files only, so a finished `index` exits 0 (not 3 for a skipped file)."""
    root = tmp_path / "src"
    (root / "claude_code").mkdir(parents=True)
    shutil.copy(FIXTURES / "claude_code" / "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b.jsonl", root / "claude_code")
    return root


def _add_chatgpt(corpus: Path) -> None:
    (corpus / "chatgpt").mkdir()
    shutil.copy(FIXTURES / "chatgpt" / "conversations.json", corpus / "chatgpt")


def _titles(index_dir: Path) -> list[tuple[str, str]]:
    with Library.open(Settings(index_dir=index_dir), read_only=True) as lib:
        return sorted((s.id, s.title) for s in lib.sessions())


def _index(index_dir: Path, *paths: Path) -> None:
    with Library.open(Settings(index_dir=index_dir)) as lib:
        lib.index(list(paths))


def test_little_free_space_is_one_line_for_every_command_and_changes_nothing(corpus, tmp_path, monkeypatch, capsys):
    index_dir = tmp_path / "index"
    _index(index_dir, corpus)
    before = _titles(index_dir)
    manifest = (index_dir / "manifest.sqlite3").read_bytes()
    _add_chatgpt(corpus)
    monkeypatch.setattr(space, "free_bytes", lambda _folder: 5 * MB)
    for argv in (["index", str(corpus)], ["sessions"], ["search", "flaky login"]):
        capsys.readouterr()
        assert main(["--index-dir", str(index_dir), *argv]) == 1
        told = problems(capsys.readouterr().err)
        assert len(told) == 1 and told[0].startswith(f"convo-tui: disk full: 5 MB free in {index_dir}"), told
    monkeypatch.undo()
    assert _titles(index_dir) == before
    assert (index_dir / "manifest.sqlite3").read_bytes() == manifest


def test_reads_go_on_with_room_to_read_but_not_to_write(corpus, tmp_path, monkeypatch, capsys):
    index_dir = tmp_path / "index"
    _index(index_dir, corpus)
    # Room to open and read the index (on a file system in memory its load fills the
    # payload indexes' holes: space.open_reserve), less than a write needs.
    read_room = space.open_reserve(index_dir) + MB
    monkeypatch.setattr(space, "free_bytes", lambda _folder: read_room)
    assert main(["--index-dir", str(index_dir), "sessions"]) == 0
    assert "Fix the flaky login test" in capsys.readouterr().out
    monkeypatch.setattr(space, "free_bytes", lambda _folder: min(read_room, space.WRITE_RESERVE - MB))
    assert main(["--index-dir", str(index_dir), "index", str(corpus)]) == 1
    assert "disk full" in capsys.readouterr().err


class _FillingShard:
    """The real Edge shard, whose writes fail as Edge reports ENOSPC after `room` of them."""

    def __init__(self, shard, room: int):
        self._shard = shard
        self.room = room

    def update(self, operation):
        if self.room <= 0:
            raise Exception("Service runtime error: No space left on device (os error 28)")  # Edge's shape
        self.room -= 1
        return self._shard.update(operation)

    def __getattr__(self, name):
        return getattr(self._shard, name)


@pytest.mark.parametrize("room", [0, 1, 3])
def test_engine_reporting_enospc_mid_run_keeps_what_was_published(corpus, tmp_path, room):
    index_dir = tmp_path / "index"
    _index(index_dir, corpus)
    before = dict(_titles(index_dir))
    _add_chatgpt(corpus)
    with Library.open(Settings(index_dir=index_dir)) as lib:
        lib.load_model()
        lib.store.ensure(lib.models.dense.dim)
        edge = lib.store.inner  # the Edge store under the holder's thread guard
        edge._shard = _FillingShard(edge._shard, room)
        with pytest.raises(DiskFull) as caught:
            lib.index([corpus])
        assert str(caught.value).startswith("disk full: ") and str(index_dir) in str(caught.value)
        edge._shard = edge._shard._shard
    after = dict(_titles(index_dir))
    assert {k: after.get(k) for k in before} == before  # nothing that was there is lost
    _index(index_dir, corpus)  # with room again, the next run finishes the work
    with Library.open(Settings(index_dir=index_dir), read_only=True) as lib:
        assert len(lib.sessions()) == len(before) + 2
        assert lib.search("haiku about flaky tests", limit=3)


def test_manifest_write_failing_with_enospc_is_one_line(corpus, tmp_path, monkeypatch, capsys):
    index_dir = tmp_path / "index"

    def full(self, force=False):
        raise OSError(errno.ENOSPC, "No space left on device", str(self.path))

    monkeypatch.setattr(Manifest, "save", full)
    assert main(["--index-dir", str(index_dir), "index", str(corpus)]) == 1
    told = problems(capsys.readouterr().err)
    assert len(told) == 1 and told[0].startswith("convo-tui: disk full: ") and str(index_dir) in told[0], told


# -- a real full file system ---------------------------------------------------------


@pytest.fixture
def small_tmpfs(tmp_path):
    mount_point = tmp_path / "tmpfs"
    mount_point.mkdir()
    if not sys.platform.startswith("linux") or shutil.which("mount") is None:
        pytest.skip("tmpfs mounts need Linux")
    # Room for the fixtures' index after its first open on tmpfs (two shards, ~101 MB each, and the archive).
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=320m", "tmpfs", str(mount_point)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)


def _cli(index_dir: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "CONVO_TUI_INDEX_DIR": str(index_dir)}
    return subprocess.run(
        [sys.executable, "-m", "convo_tui.cli.main", *args], env=env, capture_output=True, text=True, timeout=300
    )


def _fill(folder: Path, leave: int) -> Path:
    filler = folder / "filler"
    stat = os.statvfs(folder)
    with open(filler, "wb") as handle:
        handle.truncate(0)
        remaining = stat.f_bavail * stat.f_frsize - leave
        block = b"\0" * MB
        while remaining > 0:
            handle.write(block[: min(MB, remaining)])
            remaining -= MB
    return filler


def test_a_really_full_tmpfs_gives_one_line_never_a_bus_error(small_tmpfs, corpus):
    index_dir = small_tmpfs / "index"
    indexed = _cli(index_dir, "index", str(corpus))
    assert indexed.returncode == 0, indexed.stderr
    listed = _cli(index_dir, "sessions")
    sessions = listed.stdout
    assert "Fix the flaky login test" in sessions, (listed, indexed)
    # The first open filled the holes of Edge's files (tmpfs): from now on it needs little.
    filler = _fill(small_tmpfs, leave=2 * MB)
    _add_chatgpt(corpus)
    for args in (
        ["sessions"],
        ["search", "flaky login"],
        ["index", str(corpus)],
        ["show", "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b"],
    ):
        done = _cli(index_dir, *args)
        assert done.returncode == 1, (args, done.returncode, done.stderr)  # 135 / -7 was the SIGBUS
        told = problems(done.stderr)
        assert len(told) == 1 and told[0].startswith("convo-tui: disk full: "), (args, done.stderr)
    filler.unlink()
    assert _cli(index_dir, "sessions").stdout == sessions  # intact once space is back
    assert _cli(index_dir, "index", str(corpus)).returncode == 0


def test_a_first_open_that_would_fill_a_memory_disk_says_so(small_tmpfs, corpus):
    """On tmpfs Edge's first open takes ~70 MB more (it reads whole sparse pages):
    with less free than that, one line instead of a SIGBUS half-way."""
    index_dir = small_tmpfs / "index"
    assert _cli(index_dir, "index", str(corpus)).returncode == 0
    filler = _fill(small_tmpfs, leave=40 * MB)
    done = _cli(index_dir, "sessions")
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("convo-tui: disk full: "), done.stderr
    filler.unlink()
    assert "Fix the flaky login test" in _cli(index_dir, "sessions").stdout


def test_a_new_index_on_a_tiny_disk_says_so(small_tmpfs, corpus):
    _fill(small_tmpfs, leave=20 * MB)
    done = _cli(small_tmpfs / "index", "index", str(corpus))
    assert done.returncode == 1, done.stderr
    told = problems(done.stderr)
    assert len(told) == 1 and told[0].startswith("convo-tui: disk full: "), done.stderr
