"""Gemini CLI saved sessions; its stream-json logs are refused, not garbled."""

from __future__ import annotations

import pytest
from convo_tui.core.errors import ParseError
from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

TMP = FIXTURES / "gemini" / "tmp"
HASHED = next(TMP.glob("9d4b*/chats/session-*.json"))
NAMED = next((TMP / "recipe-site" / "chats").glob("session-*.json"))
STREAM = FIXTURES / "gemini" / "stream" / "run.jsonl"


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


def test_stream_json_log_is_refused_in_one_line():
    assert detect(STREAM) is None
    with pytest.raises(ParseError) as info:
        parse_path(STREAM)
    assert str(info.value) == f"{STREAM}: unknown format (not a transcript convo-tui can read)"
