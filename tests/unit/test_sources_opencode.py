"""OpenCode: the SQLite database (1.2 on) and the older one-file-per-record storage.

Fixtures follow sst/opencode 0.15.8 storage JSON and the `opencode.db` schema of 1.2."""

from __future__ import annotations

from pathlib import Path

import pytest
from convo_tui.core.errors import ParseError
from convo_tui.core.sources import detect, parse_path

from tests import paths
from tests.helpers.sqlite_fixtures import build_tree

FIXTURES = paths.FIXTURES / "opencode"
STORAGE_SESSIONS = FIXTURES / "storage" / "session" / "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750"
S1 = "ses_6a1f03e2bffeQx2kZc9d8LmN4p"


def test_older_storage_session_file():
    path = STORAGE_SESSIONS / f"{S1}.json"
    assert detect(path).name == "opencode"
    (session,) = parse_path(path)
    assert (session.id, session.title, session.project) == (S1, "Cache the forecast API responses", "weather-bot")
    assert session.cwd == "/home/noor/projects/weather-bot"
    assert session.resume == ["opencode", "--session", S1]
    assert session.started_at.isoformat() == "2025-10-15T12:40:00+00:00"
    user, reply, thanks = session.messages
    # the synthetic "Called the Read tool" text is OpenCode's, not the user's
    assert user.text == "The bot calls the forecast API on every message. Cache responses for ten minutes.\n\n[file: bot.py]"
    assert reply.thinking == "A dict keyed by city with a timestamp is enough; no new dependency."
    assert reply.text == (
        "I'll add a small in-memory cache around `fetch_forecast`.\n\nForecasts are now cached for 600 seconds per city; the tests pass."
    )
    assert [t.name for t in reply.tools] == ["edit", "bash", "webfetch"]
    assert reply.tools[1].args == {"command": "pytest -q", "description": "Run the tests"}
    assert reply.tools[1].result == "....\n4 passed in 0.31s"
    assert reply.tools[2].result == "fetch failed: getaddrinfo ENOTFOUND"
    # the step-finish part's count (the older storage writes no cache or reasoning there)
    assert reply.meta == {"model": "claude-sonnet-4-5", "usage": {"input_tokens": 1200, "output_tokens": 340}}
    assert thanks.text == "thanks"


def test_a_session_never_used_is_refused():
    with pytest.raises(ParseError, match="no messages found in this OpenCode session"):
        parse_path(STORAGE_SESSIONS / "ses_6a1e7711effeR8vW3nT0aBcD5q.json")


def test_message_and_part_files_are_not_sessions():
    part = next((FIXTURES / "storage" / "part").rglob("*.json"))
    message = next((FIXTURES / "storage" / "message").rglob("*.json"))
    assert detect(part) is None or detect(part).name != "opencode"
    assert detect(message) is None or detect(message).name != "opencode"


def test_database_holds_many_sessions(tmp_path: Path):
    database = build_tree(FIXTURES / "db", tmp_path / "opencode") / "opencode.db"
    assert detect(database).name == "opencode"
    main, child = parse_path(database)
    assert (main.title, main.project, main.cwd) == ("Make the cart badge accessible", "shop-ui", "C:\\Users\\kim\\src\\shop-ui")
    assert [(m.role, m.text) for m in main.messages] == [
        ("user", "Screen readers announce the cart badge as just a number. Fix it."),
        ("assistant", 'The badge now reads "3 items in cart".'),
    ]
    task, edit = main.messages[1].tools
    assert task.args["subagent_type"] == "explore" and task.result == "CartBadge.tsx has none; Header.tsx has two."
    assert edit.args["newString"] == "<span aria-label={`${count} items in cart`}>{count}</span>"
    assert main.messages[1].thinking == "Need an aria-label with the count and the word items."
    assert child.meta == {"parent": main.id}  # a sub-agent's session, linked to its parent
    assert child.messages[1].tools[0].result == "src/Header.tsx:12\nsrc/Header.tsx:30"
    assert child.resume == ["opencode", "--session", "ses_5f00ab22cffe8Ij3Kl4Mm5No6P"]
