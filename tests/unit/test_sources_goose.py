"""Goose sessions: `sessions.db` and the older per-session `.jsonl` files.

Fixtures follow block/goose `crates/goose/src/session/session_manager.rs` (schema 5) @ 01643006
and `legacy.rs` @ 0fc5e540 (the JSONL files of 2025)."""

from __future__ import annotations

import pytest
from convo_tui.core.sources import detect, parse_path

from tests.helpers.sqlite_fixtures import build_tree
from tests.paths import FIXTURES

LEGACY = FIXTURES / "goose" / "sessions" / "20250724_1.jsonl"


@pytest.fixture
def database(tmp_path):
    return build_tree(FIXTURES / "goose" / "sessions", tmp_path / "sessions") / "sessions.db"


def test_database_sessions_with_tool_responses_attached(database):
    assert detect(database).name == "goose"
    (session,) = parse_path(database)  # the hidden session is left out
    assert (session.id, session.title, session.cwd) == ("20260311_1", "Port 3000 already in use", "/home/omar/dev/notes-api")
    assert session.resume == ["goose", "session", "--resume", "--session-id", "20260311_1"]
    # the toolResponse message is the tool talking; the message the user never saw is left out
    assert [m.role for m in session.messages] == ["user", "assistant", "assistant"]
    reply = session.messages[1]
    assert reply.thinking == "lsof on the port."
    (shell,) = reply.tools
    assert (shell.name, shell.args) == ("developer__shell", {"command": "lsof -i :3000 -sTCP:LISTEN"})
    assert shell.result == "node    48211 omar   23u  IPv6  TCP *:3000 (LISTEN)"
    assert session.meta["model"] == "gpt-4.1"
    assert session.meta["session_usage"] == {"input_tokens": 9420, "output_tokens": 450, "total_tokens": 9870}
    assert session.started_at.isoformat() == "2026-03-11T07:40:02+00:00"


def test_legacy_jsonl_with_metadata_first():
    assert detect(LEGACY).name == "goose"
    (session,) = parse_path(LEGACY)
    assert (session.id, session.title, session.cwd) == ("20250724_1", "Broken RSS feed", "/home/omar/dev/blog")
    (view,) = session.messages[1].tools
    assert view.result == "{% for post in posts[:0] %}"  # an older bare content list
