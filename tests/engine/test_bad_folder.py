"""A folder mixing good and bad files: every good one is indexed, every bad one
is reported exactly once, with its reason, and nothing stops the run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings

from tests.helpers.cli_output import problems
from tests.paths import FIXTURES

SAMPLES = FIXTURES / "reliability" / "samples"
GOOD_SESSIONS = {
    "5d1c2e3f-aaaa-4bbb-8ccc-0123456789ab",
    "7a1e9c44",
    "2026-02-01_09-30Z-rename-the-cli-flag",
    "conv-7",
    "chat_log",
    "c0ffee00-1111-2222-3333-444455556666",
    "th-42",
    "cut-session",  # a Claude Code log whose last line was cut: still readable, with a warning
    "latin1",  # a Latin-1 byte is replaced (with a warning); the session is kept
}
UNKNOWN = "unknown format (not a transcript convo-tui can read)"
BAD = {
    "binary.jsonl": "binary file (contains NUL bytes)",
    "blank.json": "empty file",
    "cursor/agent-transcripts/broken.txt": "no `user:` or `assistant:` line found (not a Cursor transcript)",
    "deep.json": UNKNOWN,
    "empty.txt": "empty file",
    "notes.md": UNKNOWN,
    "other.json": UNKNOWN,
    "truncated.json": "line 1: truncated JSON (ends in the middle of a value)",
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "mixed"
    shutil.copytree(SAMPLES, root)
    (root / "empty.txt").write_bytes(b"")
    (root / "blank.json").write_bytes(b"  \n\n")
    (root / "binary.jsonl").write_bytes(b'{"type":"user"}\n\x00\x01\x02')
    (root / "latin1.txt").write_bytes("user:\nhello café\n".encode("latin-1"))
    (root / "truncated.json").write_bytes(b'[{"role": "user", "content": "hi')
    (root / "notes.md").write_text("# Notes\n\nNothing to see.\n", encoding="utf-8")
    (root / "cursor" / "agent-transcripts" / "broken.txt").write_text("just some text\nwithout roles\n", encoding="utf-8")
    (root / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    (root / "other.json").write_text('{"a": 1}\n', encoding="utf-8")
    (root / "claude" / "projects" / "-home-alice-code-shop" / "cut.jsonl").write_text(
        '{"type":"user","sessionId":"cut-session","message":{"role":"user","content":"Is this kept?"}}\n'
        '{"type":"assistant","sessionId":"cut-session","message":{"role":"assistant","content":[{"type":"text","text":"Ye',
        encoding="utf-8",
    )
    return root


def expected_skips(root: Path) -> list[tuple[str, str]]:
    return sorted((str(root / name), reason) for name, reason in BAD.items())


def test_good_files_are_indexed_and_each_bad_one_reported_once(folder: Path, tmp_path: Path):
    with Library.open(Settings(index_dir=tmp_path / "index")) as library:
        report = library.index([folder])
        assert (report.added, report.sessions) == (len(GOOD_SESSIONS), len(GOOD_SESSIONS))
        assert sorted(report.skipped) == expected_skips(folder)
        assert len(report.skipped) == len(BAD)  # once each
        assert {s.id for s in library.sessions()} == GOOD_SESSIONS
        assert [m.text for m in library.session("cut-session").messages] == ["Is this kept?"]

        # Again: nothing to do for the good ones, the bad ones are still told, once.
        again = library.index([folder])
        assert (again.added, again.unchanged) == (0, len(GOOD_SESSIONS))
        assert sorted(again.skipped) == expected_skips(folder)

        # A file that used to be good and breaks: reported, and its session is kept.
        (folder / "openai" / "chat_log.json").write_text('[{"role": "user", "content": "cut', encoding="utf-8")
        broken = library.index([folder])
        assert sorted(broken.skipped) == sorted(
            [
                *expected_skips(folder),
                (str(folder / "openai" / "chat_log.json"), "line 1: truncated JSON (ends in the middle of a value)"),
            ]
        )
        assert "chat_log" in {s.id for s in library.sessions()}


def test_the_cli_reports_each_bad_file_on_one_line(folder: Path, tmp_path: Path, capsys):
    assert main(["index", str(folder), "--index-dir", str(tmp_path / "index")]) == 3  # done, with files skipped
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == f"sessions: {len(GOOD_SESSIONS)} added, 0 updated, 0 unchanged, 0 removed; {len(BAD)} file(s) skipped"
    assert sorted(lines[1 : 1 + len(BAD)]) == [f"  skipped {path}: {reason}" for path, reason in expected_skips(folder)]
    assert lines[1 + len(BAD)].startswith(f"index: {len(GOOD_SESSIONS)} sessions, ")
    assert problems(err) == [f"convo-tui: {len(BAD)} file(s) skipped (listed above); everything else is indexed"]
