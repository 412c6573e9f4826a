"""Gemini CLI saved sessions: the `.json` documents and the `.jsonl` journals of 0.39 on.

Fixtures follow google-gemini/gemini-cli: the `.json` sessions of 2025-09 – 2026-01 and the
JSONL journal of `packages/core/src/services/chatRecordingService.ts` at 5411f113 (0.39+)."""

from __future__ import annotations

from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

TMP = FIXTURES / "gemini" / "tmp"
HASHED = next(TMP.glob("9d4b*/chats/session-*.json"))
NAMED = next((TMP / "recipe-site" / "chats").glob("session-*.json"))
JOURNAL = next((TMP / "ledger" / "chats").glob("session-*.jsonl"))
STREAM = FIXTURES / "gemini_stream" / "readme-run.jsonl"


def test_session_with_thoughts_and_tool_results():
    assert detect(HASHED).name == "gemini-cli"
    (session,) = parse_path(HASHED)
    assert session.id == "b6f0c2de-41aa-4e0b-9a55-2f7c1e8d3a90"
    assert (session.project, session.cwd) == ("Gemini CLI", None)  # only a hash of the folder is known
    assert session.resume == ["gemini", "--resume", "b6f0c2de-41aa-4e0b-9a55-2f7c1e8d3a90"]
    assert session.started_at.isoformat() == "2025-09-18T14:05:12.004000+00:00"
    assert [(m.role, m.text[:30]) for m in session.messages] == [
        ("user", "Why is the Docker image 1.2 GB"),
        ("assistant", ""),
        ("assistant", "The full `python:3.12` image i"),
        ("user", "And the build time?"),  # the "Request cancelled." info line is the CLI's, not a message
        ("assistant", "Order the COPY after `pip inst"),
    ]
    first = session.messages[1]
    assert first.thinking == "**Inspecting the Dockerfile**\nThe base image and build tools are likely the bulk."
    (read,) = first.tools
    assert read.args == {"absolute_path": "/home/sam/api/Dockerfile"}
    assert read.result.startswith("FROM python:3.12\n")
    assert session.messages[2].tools[0].result == "Successfully modified file: /home/sam/api/Dockerfile (1 replacements)."
    assert len(session.turns) == 2


def test_project_root_beside_the_chats_and_api_errors_apart():
    (session,) = parse_path(NAMED)
    assert (session.project, session.cwd) == ("recipe-site", "C:\\Users\\ines\\recipe-site")
    assert [(m.role, m.error) for m in session.messages] == [
        ("user", False),
        ("system", True),
        ("user", False),
        ("assistant", False),
    ]
    assert session.messages[3].tools[0].result == "Created print.css"


def test_stream_json_log_is_not_taken_for_a_saved_chat():
    assert detect(STREAM).name == "gemini-stream"


def test_jsonl_journal_of_0_39_is_replayed():
    """A record written again replaces the first; `$rewindTo` drops a draft; `$set` updates."""
    assert detect(JOURNAL).name == "gemini-cli"
    (session,) = parse_path(JOURNAL)
    assert session.id == "4a6c8e0b-2d4f-4a6b-8c0e-2f4a6c8e0b1d"
    assert (session.project, session.cwd) == ("ledger", "/home/li/ledger")
    assert [(m.role, m.text[:20]) for m in session.messages] == [
        ("user", "Why is the CSV impor"),
        ("assistant", ""),
        ("assistant", "It commits after eve"),
    ]
    call = session.messages[1]
    assert call.thinking == "**Profiling**\nCheck how rows are inserted."
    assert call.tools[0].result.startswith("for row in rows:")
    assert call.meta["usage"] == {
        "input_tokens": 5200,
        "cached_input_tokens": 2048,
        "output_tokens": 52,
        "reasoning_output_tokens": 12,
    }
    assert session.started_at.isoformat() == "2026-04-20T08:15:02+00:00"
    assert session.updated_at.isoformat() == "2026-04-20T08:15:20+00:00"
    assert session.meta["kind"] == "main"


def test_journal_compression_replaces_the_messages(tmp_path):
    path = tmp_path / "chats" / "session-x.jsonl"
    path.parent.mkdir()
    path.write_text(
        '{"sessionId": "s-1", "projectHash": "ab", "startTime": "2026-04-20T08:00:00Z"}\n'
        '{"id": "u1", "type": "user", "content": "old question"}\n'
        '{"$set": {"messages": [{"id": "u9", "type": "user", "content": "summary as asked"}]}}\n'
        '{"id": "g9", "type": "gemini", "content": "answer"}\n',
        encoding="utf-8",
    )
    (session,) = parse_path(path)
    assert [m.text for m in session.messages] == ["summary as asked", "answer"]
