"""Cursor IDE chats from `state.vscdb`: one database, many sessions, read without
ever writing or locking it; folders come from the workspace databases.

Fixtures follow Cursor 1.x `state.vscdb` (`cursorDiskKV` composerData and bubbleId rows, 2025)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from convo_tui.core.sources import detect, parse_path

from tests.helpers.sqlite_fixtures import build_tree
from tests.paths import FIXTURES

FIXTURE = FIXTURES / "cursor_ide" / "User"
A = "3c0e7b52-1f7a-4a55-9b1e-6f3d2a1b0c9d"
B = "8a1f4e20-5d6c-4b3a-8e7f-0a1b2c3d4e5f"
D = "f4e5d6c7-b8a9-4c0d-9e1f-203040506070"


@pytest.fixture
def user_dir(tmp_path: Path) -> Path:
    return build_tree(FIXTURE, tmp_path / "Cursor" / "User")


def test_database_is_recognised_and_workspace_databases_are_not(user_dir: Path):
    assert detect(user_dir / "globalStorage" / "state.vscdb").name == "cursor-ide"
    workspace = next((user_dir / "workspaceStorage").iterdir()) / "state.vscdb"
    assert detect(workspace) is None  # no chats in it: only the folder's list of composers


def test_one_database_many_sessions(user_dir: Path):
    sessions = {s.id: s for s in parse_path(user_dir / "globalStorage" / "state.vscdb")}
    assert list(sessions) == [A, B, D]  # the draft and the unreadable row are not sessions
    a = sessions[A]
    assert (a.title, a.project, a.cwd, a.resume) == ("Fix flaky upload test", "photo-share", "/home/mia/code/photo-share", None)
    assert a.started_at.isoformat() == "2025-11-20T10:00:00+00:00"
    assert [(m.role, m.text) for m in a.messages] == [
        ("user", "The upload test fails on CI but passes locally. Can you find out why?"),
        (
            "assistant",
            "Let me look at the test and run it the way CI does.\n\n"
            "The test writes its temp file in a `beforeAll` that CI runs in another worker. Create it in `beforeEach` instead.",
        ),
        ("user", "ok do it"),
        ("assistant", "Done: the temp file is now created per test."),
    ]
    reply = a.messages[1]
    assert reply.thinking == "CI differences: timezone, parallelism, temp dirs. Look at the test first."
    read, run = reply.tools
    assert (read.name, read.args) == ("read_file_v2", {"targetFile": "tests/upload.test.ts", "offset": 1, "limit": 80})
    assert run.args["command"] == "CI=true npx vitest run tests/upload.test.ts"
    assert run.result.startswith("FAIL tests/upload.test.ts")
    (edit,) = a.messages[3].tools
    assert edit.args == {"target_file": "tests/upload.test.ts", "instructions": "move temp file creation to beforeEach"}
    assert len(a.turns) == 2


def test_older_inline_conversation_and_a_windows_folder(user_dir: Path):
    sessions = {s.id: s for s in parse_path(user_dir / "globalStorage" / "state.vscdb")}
    b = sessions[B]
    assert (b.project, b.cwd) == ("invoice-api", "c:/Users/raj/dev/invoice-api")
    assert [m.role for m in b.messages] == ["user", "assistant"]
    assert b.messages[1].timestamp.isoformat() == "2025-01-02T10:00:06+00:00"


def test_chat_without_folder_or_name(user_dir: Path):
    sessions = {s.id: s for s in parse_path(user_dir / "globalStorage" / "state.vscdb")}
    d = sessions[D]
    assert d.title == "What is the difference between `git switch` and `git checkout`?"
    assert d.project == "Cursor" and d.cwd is None
    assert [(m.role, m.thinking) for m in d.messages] == [("user", ""), ("assistant", "")]  # a bare signature is no thinking


def test_never_writes_or_locks_the_database(user_dir: Path):
    database = user_dir / "globalStorage" / "state.vscdb"
    before = hashlib.sha256(database.read_bytes()).hexdigest()
    holder = sqlite3.connect(database)
    holder.execute("BEGIN EXCLUSIVE")  # Cursor in the middle of a write
    try:
        assert len(parse_path(database)) == 3
    finally:
        holder.rollback()
        holder.close()
    assert hashlib.sha256(database.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in database.parent.iterdir()) == ["state.vscdb"]  # no journal left behind


def test_recent_chats_in_the_write_ahead_log_are_read(user_dir: Path):
    database = user_dir / "globalStorage" / "state.vscdb"
    writer = sqlite3.connect(database)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute(
        "INSERT INTO cursorDiskKV VALUES ('composerData:new-1', ?)",
        ('{"name": "Fresh", "conversation": [{"type": 1, "text": "still in the log"}]}',),
    )
    writer.commit()
    try:
        assert (database.parent / "state.vscdb-wal").stat().st_size > 0
        ids = [s.id for s in parse_path(database)]
        assert "new-1" in ids
    finally:
        writer.close()
