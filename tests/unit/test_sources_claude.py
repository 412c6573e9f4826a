"""Claude Code session logs: exact messages and turns through `convo-tui show --json`.

Fixtures follow anthropics/claude-code session logs of versions 1.0.98, 2.0.31 and 2.1.3 – 2.1.20 (their lines' `version`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.errors import ParseError
from convo_tui.core.sources import detect, parse_path
from convo_tui.core.sources._claude_text import clean_user_text

from tests.paths import FIXTURES

HERE = FIXTURES / "claude_code"
SESSION_ID = "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b"
FULL = HERE / f"{SESSION_ID}.jsonl"
TRUNCATED = HERE / "truncated.jsonl"


def show_json(path: Path, capsys) -> list[dict]:
    assert main(["show", str(path), "--json"]) == 0
    out = capsys.readouterr().out
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def msg(id: str, role: str, text: str, ts: str, thinking: str = "", tools: list | None = None, sidechain: bool = False) -> dict:
    return {
        "id": id,
        "role": role,
        "text": text,
        "thinking": thinking,
        "timestamp": f"2025-06-01T{ts}+00:00",
        "tools": tools or [],
        "virtual": False,
        "sidechain": sidechain,
    }


BASH = {
    "name": "Bash",
    "args": {"command": "pytest tests/test_login.py -q --count 5", "description": "Run the login test five times"},
    "result": "2 failed, 3 passed",  # the tool_result line, attached to its call
}
TASK = {
    "name": "Task",
    "args": {
        "description": "Find token expiry",
        "prompt": "Find where the session token expiry is set.",
        "subagent_type": "general-purpose",
    },
    "result": "It is set in auth/session.py: TOKEN_TTL = 1.",
}
Q1 = "Why does the login test fail sometimes?"
A1 = "Let me run it a few times."
A1_END = "The token lives one second in tests, so slow runs fail. Raise TOKEN_TTL to 60."
U2 = "[image]\n\nIs this the error you mean?\n\n/model opus\n\nTry again please"
A2 = "Yes, that is the timeout error from the expired token."


def test_full_session_messages_and_turns(capsys):
    (doc,) = show_json(FULL, capsys)
    assert doc["session"] == {
        "id": SESSION_ID,
        "title": "Fix the flaky login test",  # the ai-title line, not the unrelated summary
        "project": "webshop",  # basename of cwd
        "source": "claude-code",
        "path": str(FULL),
        "started_at": "2025-06-01T10:00:00+00:00",
        "updated_at": "2025-06-01T10:01:45+00:00",
        "cwd": "/home/dev/code/webshop",
        "resume": ["claude", "--resume", SESSION_ID],
    }
    assert doc["messages"] == [
        msg("msg-0", "user", Q1, "10:00:00"),  # system-reminder removed
        # three lines of one API message (thinking, text, tool_use) are one Message
        msg("msg-1", "assistant", A1, "10:00:03", "Flaky tests often come from timing. Run it first.", [BASH]),
        # the tool_result line in between is not a user message
        msg("msg-2", "assistant", "", "10:00:12", tools=[TASK]),
        msg("msg-3", "user", "Find where the session token expiry is set.", "10:00:12.500000", sidechain=True),
        msg("msg-4", "assistant", "It is set in auth/session.py: TOKEN_TTL = 1.", "10:00:15", sidechain=True),
        msg("msg-5", "assistant", A1_END, "10:00:20"),
        msg("msg-6", "user", "[image]\n\nIs this the error you mean?", "10:01:00"),
        msg(
            "msg-7",
            "assistant",
            'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
            "10:01:05",
        ),
        msg("msg-8", "user", "/model opus", "10:01:30"),  # command shown as typed; its stdout line dropped
        msg("msg-9", "user", "Try again please", "10:01:40"),  # the isMeta caveat before it is dropped
        msg("msg-10", "assistant", A2, "10:01:45"),
    ]
    assert doc["turns"] == [
        {
            "index": 0,
            "user_message_ids": ["msg-0"],
            "ai_message_ids": ["msg-1", "msg-2", "msg-5"],
            "user_text": Q1,
            "ai_text": f"{A1}\n\n{A1_END}",
            "combined_text": f"用户: {Q1}\n\nAI: {A1}\n\n{A1_END}",
            "tools": ["Bash", "Task"],
            "timestamp": "2025-06-01T10:00:00+00:00",
        },
        {
            "index": 1,
            "user_message_ids": ["msg-6", "msg-8", "msg-9"],
            "ai_message_ids": ["msg-10"],
            "user_text": U2,
            "ai_text": A2,
            "combined_text": f"用户: {U2}\n\nAI: {A2}",
            "tools": [],
            "timestamp": "2025-06-01T10:01:00+00:00",
        },
    ]


def test_sidechain_and_error_flags():
    (session,) = parse_path(FULL)
    flags = [(m.id, m.sidechain, m.error) for m in session.messages if m.sidechain or m.error]
    assert flags == [("msg-3", True, False), ("msg-4", True, False), ("msg-7", False, True)]
    assert session.warnings == []


def test_truncated_line_gives_partial_session_and_warning(capsys):
    assert main(["show", str(TRUNCATED), "--json"]) == 0
    captured = capsys.readouterr()
    (doc,) = [json.loads(line) for line in captured.out.splitlines()]
    assert [(m["id"], m["role"], m["text"]) for m in doc["messages"]] == [
        ("msg-0", "user", Q1),
        ("msg-1", "assistant", A1),
        ("msg-2", "assistant", A1_END),
    ]
    assert doc["session"]["title"] == Q1  # no title line survived: first user text
    assert captured.err == f"convo-tui: warning: {TRUNCATED}:8: truncated JSON (ends in the middle of a value)\n"
    (session,) = parse_path(TRUNCATED)
    assert session.warnings == [f"{TRUNCATED}:8: truncated JSON (ends in the middle of a value)"]


def _write(tmp_path: Path, name: str, lines: list) -> Path:
    path = tmp_path / name
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines), encoding="utf-8")
    return path


def _user(text, uuid="u1", **extra):
    return {
        "type": "user",
        "sessionId": "s-1",
        "uuid": uuid,
        "cwd": "C:\\Users\\dev\\code\\api",
        "timestamp": "2025-06-01T10:00:00.000Z",
        "message": {"role": "user", "content": text},
        **extra,
    }


def test_custom_title_wins_and_windows_cwd(tmp_path):
    path = _write(
        tmp_path,
        "s-1.jsonl",
        [
            {"type": "summary", "summary": "Summary of this session", "leafUuid": "u1"},
            _user("hello"),
            {"type": "ai-title", "aiTitle": "Generated title", "sessionId": "s-1"},
            {"type": "custom-title", "customTitle": "My own name", "sessionId": "s-1"},
        ],
    )
    (session,) = parse_path(path)
    assert (session.id, session.title, session.project) == ("s-1", "My own name", "api")


def test_summary_for_a_leaf_in_this_file_names_the_session(tmp_path):
    path = _write(
        tmp_path,
        "other-name.jsonl",
        [
            {"type": "summary", "summary": "Summary of this session", "leafUuid": "u1"},
            _user("hello"),
        ],
    )
    (session,) = parse_path(path)
    assert (session.id, session.title) == ("s-1", "Summary of this session")


def test_only_bookkeeping_lines_is_a_one_line_error(tmp_path):
    path = _write(
        tmp_path,
        "empty.jsonl",
        [
            {"type": "summary", "summary": "x", "leafUuid": "nope", "sessionId": "s"},
            _user([{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]),
        ],
    )
    assert detect(path).name == "claude-code"
    with pytest.raises(ParseError) as caught:
        parse_path(path)
    assert str(caught.value) == f"{path}: no messages found in this Claude Code session log"


def test_compact_summary_is_a_system_message_outside_turns(tmp_path):
    path = _write(
        tmp_path,
        "s.jsonl",
        [
            _user("This session is being continued from a previous conversation.", isCompactSummary=True),
            _user("go on", uuid="u2"),
        ],
    )
    (session,) = parse_path(path)
    assert [(m.role, m.text) for m in session.messages] == [
        ("system", "This session is being continued from a previous conversation."),
        ("user", "go on"),
    ]
    assert [t.user_text for t in session.turns] == ["go on"]


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        (
            "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>",
            "/clear",
        ),
        ("<bash-input>git status</bash-input>", "!git status"),
        ("<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>", ""),
        ("[Request interrupted by user for tool use]", ""),
        ("<ide_opened_file>The user opened a.py</ide_opened_file>\nexplain this", "explain this"),
        ("keep <b>markup</b> the user typed", "keep <b>markup</b> the user typed"),
    ],
)
def test_clean_user_text(raw, clean):
    assert clean_user_text(raw) == clean
