"""Source transcripts are read-only to us: no command or Library call writes them.

Two proofs. (1) Before/after snapshots of every source file and folder: sha256,
st_mtime_ns, mode, and each folder's listing (nothing created beside them).
(2) A Python audit hook that records any attempt to open a source path for
writing, or to rename, remove, chmod, utime or truncate one, while the calls
run. The files are also made read-only (0444, folders 0555); tests run as root
in CI, where that alone proves nothing, hence the hook.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings

from tests.helpers.app import workers_done
from tests.paths import FIXTURES

SAMPLES = FIXTURES / "reliability" / "samples"
SESSION_IDS = {
    "5d1c2e3f-aaaa-4bbb-8ccc-0123456789ab",  # cursor
    "7a1e9c44",  # claude code
    "2026-02-01_09-30Z-rename-the-cli-flag",  # specstory
    "conv-7",  # openai conversation rows
    "chat_log",  # openai message list
    "c0ffee00-1111-2222-3333-444455556666",  # chatgpt export
    "th-42",  # chat thread
}

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_PATH_EVENTS = {
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.rename": (0, 1),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.utime": (0,),
    "os.truncate": (0,),
    "os.mkdir": (0,),
    "os.link": (0, 1),
    "os.symlink": (0, 1),
    "os.setxattr": (0,),
    "os.removexattr": (0,),
    "shutil.rmtree": (0,),
    "shutil.move": (0,),
    "shutil.copyfile": (1,),
}
_watched: list[str] = []
_violations: list[str] = []


def _under_watch(path: object) -> bool:
    if isinstance(path, int) or path is None:
        return False
    try:
        text = os.path.abspath(os.fsdecode(path))  # type: ignore[arg-type]
    except TypeError:
        return False
    return any(text == root or text.startswith(root + os.sep) for root in _watched)


def _audit(event: str, args: tuple) -> None:
    if not _watched:
        return
    if event == "open":
        path, mode, flags = ([*list(args), None, None, None])[:3]
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (isinstance(flags, int) and flags & _WRITE_FLAGS)
        if writing and _under_watch(path):
            _violations.append(f"open({path!r}, {mode!r}, {flags!r})")
    elif event in _PATH_EVENTS and any(position < len(args) and _under_watch(args[position]) for position in _PATH_EVENTS[event]):
        _violations.append(f"{event}{args!r}")


sys.addaudithook(_audit)  # hooks cannot be removed; it is idle unless a test watches a folder


@contextmanager
def forbid_writes(root: Path) -> Iterator[list[str]]:
    _watched.append(os.path.abspath(root))
    _violations.clear()
    try:
        yield _violations
    finally:
        _watched.clear()


def snapshot(root: Path) -> dict[str, tuple]:
    state: dict[str, tuple] = {}
    for path in sorted([root, *root.rglob("*")]):
        info = path.lstat()
        if path.is_dir():
            state[str(path)] = (
                "dir",
                stat.S_IMODE(info.st_mode),
                info.st_mtime_ns,
                tuple(sorted(p.name for p in path.iterdir())),
            )
        else:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            state[str(path)] = ("file", stat.S_IMODE(info.st_mode), info.st_mtime_ns, info.st_size, digest)
    return state


@pytest.fixture
def sources(tmp_path: Path) -> Iterator[Path]:
    src = tmp_path / "src"
    shutil.copytree(SAMPLES, src)
    for path in sorted(src.rglob("*"), reverse=True):
        path.chmod(0o555 if path.is_dir() else 0o444)
    src.chmod(0o555)
    yield src
    for path in [src, *src.rglob("*")]:  # let pytest clean up
        path.chmod(0o755 if path.is_dir() else 0o644)


def test_the_hook_catches_writes(tmp_path: Path):
    """The audit hook is a real guard: it sees each kind of write."""
    target = tmp_path / "watched"
    target.mkdir()
    victim = target / "a.txt"
    victim.write_text("x")
    with forbid_writes(target) as violations:
        victim.open("a").close()
        victim.read_text()  # reading is fine
        os.utime(victim)
        os.chmod(victim, 0o600)
        os.rename(victim, target / "b.txt")
        os.remove(target / "b.txt")
    kinds = [v.split("(")[0] for v in violations]
    assert kinds == ["open", "os.utime", "os.chmod", "os.rename", "os.remove"]


def test_library_indexing_and_browsing_leave_sources_untouched(sources: Path, tmp_path: Path):
    before = snapshot(sources)
    with forbid_writes(sources) as violations, Library.open(Settings(index_dir=tmp_path / "index")) as library:
        first = library.index([sources])
        assert (first.added, first.skipped) == (7, [])
        assert library.index([sources]).unchanged == 7
        assert {s.id for s in library.sessions()} == SESSION_IDS
        assert library.projects()
        for mode in ("hybrid", "semantic", "keyword", "fuzzy"):
            assert library.search("Qdrant collection", mode=mode, limit=5)
        for session_id in sorted(SESSION_IDS):
            session = library.session(session_id)
            assert session.messages
            library.hits_in_session("release", session_id)
        # User edits live beside the index, never in the transcript.
        library.rename_session("th-42", "Shipping list")
        library.describe_session("th-42", "what was left before 1.0")
        library.star_session("th-42")
        library.tag_session("th-42", ["release"])
        library.set_session_settings("th-42", hide_thinking=True)
        library.delete_session("conv-7")
        assert library.restore_session("conv-7")
        assert library.index([sources]).added == 1
        assert library.prune() == 0
    assert violations == []
    assert snapshot(sources) == before


def test_every_command_leaves_sources_untouched(sources: Path, tmp_path: Path, capsys):
    index = ["--index-dir", str(tmp_path / "index")]
    files = sorted(str(p) for p in sources.rglob("*") if p.is_file())
    commands = [
        ["index", str(sources), *index],
        ["index", str(sources), *index],
        ["search", "Qdrant collection", *index],
        ["search", "--json", "--mode", "keyword", "Decimal", *index],
        ["sessions", *index],
        ["sessions", "--json", *index],
        ["sources"],
        ["context", "--session", "th-42", "what is left?", *index],
        ["session", "star", "th-42", *index],
        ["session", "rename", "7a1e9c44", "Cent rounding", *index],
        ["prune", *index],
        *(["show", path] for path in files),
        *(["show", "--json", path] for path in files),
    ]
    before = snapshot(sources)
    codes = []
    with forbid_writes(sources) as violations:
        for argv in commands:
            codes.append(main(argv))
    out = capsys.readouterr()
    assert violations == []
    assert snapshot(sources) == before
    assert codes == [0] * len(commands), out.err
    assert "sessions: 7 added" in out.out and "Decimal" in out.out  # the commands really ran


def test_a_session_file_changed_by_its_tool_is_read_again_not_written(sources: Path, tmp_path: Path):
    """The only writer of a source is its tool; we notice and re-read."""
    with Library.open(Settings(index_dir=tmp_path / "index")) as library:
        library.index([sources])
        cursor = next(sources.rglob("*.txt"))
        cursor.chmod(0o644)
        cursor.write_text(cursor.read_text(encoding="utf-8") + "\nuser:\nOne more question.\n", encoding="utf-8")
        cursor.chmod(0o444)
        before = snapshot(sources)
        with forbid_writes(sources) as violations:
            report = library.index([sources])
        assert (report.updated, report.unchanged) == (1, 6)
        assert library.session(cursor.stem).messages[-1].text == "One more question."
    assert violations == []
    assert snapshot(sources) == before


def test_browsing_in_the_app_leaves_sources_untouched(sources: Path, tmp_path: Path, monkeypatch):
    """Search, open a session in the reader, copy a card: the app reads only."""
    import asyncio

    monkeypatch.setenv("CONVO_TUI_CLIPBOARD", "file")  # never the clipboard of the person running the tests

    from convo_tui.tui.app import create_app
    from convo_tui.tui.screens.reader import ReaderScreen

    settings = Settings(index_dir=tmp_path / "index", sources=[sources], discover_defaults=False)
    with Library.open(settings) as library:
        library.index([sources])
        before = snapshot(sources)

        async def browse() -> None:
            app = create_app(settings, library=library, index_on_start=False)
            async with app.run_test(size=(100, 32)) as pilot:
                await pilot.pause()
                await workers_done(app)
                app.search_screen.set_query("Qdrant collection")
                await pilot.pause(0.3)
                await workers_done(app)
                await pilot.pause()
                cards = app.search_screen.cards()
                assert cards
                cards[0].focus()
                await pilot.press("ctrl+y")  # copy (the search screen's keys never type)
                await pilot.press("ctrl+o")
                await workers_done(app)
                await pilot.pause()
                assert isinstance(app.screen, ReaderScreen)
                await pilot.press("escape")
                await pilot.pause()

        with forbid_writes(sources) as violations:
            asyncio.run(browse())
    assert violations == []
    assert snapshot(sources) == before
