"""The Markdown copy says which conversation it came from: whole title, project, date, path, id."""

from __future__ import annotations

from datetime import UTC, datetime

from convo_tui.core.model import Message, Session
from convo_tui.tui.markdown import session_markdown, turn_markdown


def make_session() -> Session:
    long_title = "Why does the checkout test fail only on CI when the coupon registry is shared between workers"
    return Session(
        id="0b6f7d2e-3c41-4a8e-9d55-1f2a3b4c5d6e",
        title=long_title,
        project="shopfront",
        source="claude-code",
        path="/home/dana/.claude/projects/shopfront/0b6f7d2e.jsonl",
        messages=[
            Message(id="m0", role="user", text="Why is it flaky?"),
            Message(id="m1", role="assistant", text="The registry is shared."),
        ],
        started_at=datetime(2026, 1, 2, 3, 4, tzinfo=UTC),
        cwd="/home/dana/code/shopfront",
    )


def test_turn_markdown_carries_where_the_conversation_came_from(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    session = make_session()
    text = turn_markdown(session, 0)
    head = text.split("## Turn 0")[0]
    assert head.startswith(f"# {session.title}\n")  # the whole title, not cut
    for line in (
        "- Project: shopfront",
        "- Source: claude-code",
        "- Path: `/home/dana/.claude/projects/shopfront/0b6f7d2e.jsonl`",
        "- Session id: `0b6f7d2e-3c41-4a8e-9d55-1f2a3b4c5d6e`",
        "- Folder: `/home/dana/code/shopfront`",
    ):
        assert line in head
    assert "- Date: 2026-01-02" in head
    assert "**User [0]**" in text and "The registry is shared." in text


def test_session_markdown_has_the_same_header():
    session = make_session()
    assert session_markdown(session).split("## Turn 0")[0] == turn_markdown(session, 0).split("## Turn 0")[0]
