"""A session survives the trip through the index record unchanged."""

from __future__ import annotations

from datetime import UTC, datetime

from convo_tui.core.model import Message, Session, ToolCall
from convo_tui.core.serialize import session_from_record, session_to_json, session_to_record


def sample() -> Session:
    t = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
    return Session(
        id="s1",
        title="RAG 设计",
        project="cocursor",
        source="cursor",
        path="/x/s1.txt",
        messages=[
            Message(id="msg-0", role="user", text="如何设计 RAG？", timestamp=t),
            Message(
                id="msg-1", role="assistant", text="先看代码", thinking="plan", tools=[ToolCall("read_file", {"path": "a.go"})]
            ),
            Message(
                id="msg-2",
                role="assistant",
                text="guide",
                virtual=True,
                is_html=True,
                attachment="f.py",
                available_tasks=[{"name": "优化代码"}],
                meta={"k": 1},
            ),
        ],
        started_at=t,
        updated_at=t,
    )


def test_record_round_trip_keeps_everything():
    session = sample()
    back = session_from_record(session_to_record(session))
    assert back.messages == session.messages
    assert (back.id, back.title, back.project, back.source, back.path, back.started_at) == (
        session.id,
        session.title,
        session.project,
        session.source,
        session.path,
        session.started_at,
    )
    assert [t.combined_text for t in back.turns] == [t.combined_text for t in session.turns]


def test_show_json_shape():
    data = session_to_json(sample())
    assert data["session"] == {
        "id": "s1",
        "title": "RAG 设计",
        "project": "cocursor",
        "source": "cursor",
        "path": "/x/s1.txt",
        "started_at": "2026-03-04T05:06:07+00:00",
        "updated_at": "2026-03-04T05:06:07+00:00",
        "cwd": None,
        "resume": None,
    }
    assert data["messages"][1] == {
        "id": "msg-1",
        "role": "assistant",
        "text": "先看代码",
        "thinking": "plan",
        "timestamp": None,
        "tools": [{"name": "read_file", "args": {"path": "a.go"}}],
        "virtual": False,
        "sidechain": False,
    }
    assert data["turns"] == [
        {
            "index": 0,
            "user_message_ids": ["msg-0"],
            "ai_message_ids": ["msg-1"],
            "user_text": "如何设计 RAG？",
            "ai_text": "先看代码",
            "combined_text": "用户: 如何设计 RAG？\n\nAI: 先看代码",
            "tools": ["read_file"],
            "timestamp": "2026-03-04T05:06:07+00:00",
        }
    ]


def test_record_round_trips_tool_results_cwd_and_resume():
    session = sample()
    session.cwd = "/home/a/proj"
    session.resume = ["claude", "--resume", "s1"]
    session.messages[1].tools[0].result = "package main"
    back = session_from_record(session_to_record(session))
    assert (back.cwd, back.resume) == ("/home/a/proj", ["claude", "--resume", "s1"])
    assert back.messages[1].tools[0].result == "package main"
    assert session_to_json(back)["messages"][1]["tools"] == [
        {"name": "read_file", "args": {"path": "a.go"}, "result": "package main"}
    ]
