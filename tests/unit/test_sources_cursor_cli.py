"""Cursor CLI chat stores (`~/.cursor/chats/<md5 of folder>/<chat id>/store.db`).

cursor-agent is closed source. Fixtures follow the stores (2025-11 – 2026-06) that several
independent public readers decode alike (hex JSON meta, sha256-keyed blobs, a protobuf root of
message ids and the workspace URI), and the agent's own bundled code reading `latestRootBlobId`."""

from __future__ import annotations

import sqlite3

import pytest
from convo_tui.core.sources import detect, parse_path
from convo_tui.core.sources.cursor_cli import root_fields

from tests.helpers.sqlite_fixtures import build_tree
from tests.paths import FIXTURES

CHAT = "1c3e5a7b-9d2f-4b6e-8a0c-3e5b7d9f1a2c"


@pytest.fixture
def store(tmp_path):
    chats = build_tree(FIXTURES / "cursor_cli" / "chats", tmp_path / "chats")
    return next(chats.glob(f"*/{CHAT}/store.db"))


def test_messages_in_the_root_blobs_order_with_tools(store):
    assert detect(store).name == "cursor-cli"
    (session,) = parse_path(store)
    assert (session.id, session.title) == (CHAT, "Stale values after set")
    assert (session.cwd, session.project) == ("/home/tom/src/kvstore", "kvstore")  # root field 9
    assert session.resume == ["cursor-agent", "--resume", CHAT]
    assert [(m.role, m.text[:26]) for m in session.messages] == [
        ("user", "Why does `kv get` return a"),  # <user_info> is the environment, <user_query> the words
        ("assistant", "Checking the cache layer."),
        ("assistant", "`set()` writes to disk but"),
    ]
    reply = session.messages[1]
    assert reply.thinking == "A read cache that set() never clears."
    (read,) = reply.tools
    assert (read.name, read.args) == ("read_file", {"path": "kvstore/cache.py"})
    assert read.result.startswith("def set(key, value):")
    assert session.meta == {"model": "claude-4.5-sonnet", "mode": "default"}
    assert session.started_at.isoformat() == "2026-05-17T09:46:40.512000+00:00"


def test_without_a_readable_root_the_stored_order_is_used(store):
    with sqlite3.connect(store) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = '0'", (b'{"agentId":"x","name":"n"}'.hex(),))
    (session,) = parse_path(store)
    assert [m.role for m in session.messages] == ["user", "assistant", "assistant"]


def test_root_fields_refuse_a_truncated_root():
    with pytest.raises(ValueError):
        root_fields(b"\x0a\x20" + b"\x00" * 5)
    assert root_fields(b"\x0a\x20" + b"\x01" * 32 + b"\x4a\x05file:") == (["01" * 32], "file:")
