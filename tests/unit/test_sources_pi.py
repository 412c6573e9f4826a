"""Pi coding agent sessions (`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`).

Fixtures follow badlogic/pi-mono's session format version 3 (`session-manager.ts`, coding-agent
0.58.3 @ 83378aad); the version 1 shape follows the session committed in pi-mono
(`packages/coding-agent/test/fixtures/large-session.jsonl`)."""

from __future__ import annotations

import json

from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

PID = "3b8d1f6a-0c2e-4d7b-9a51-8e6f2c4b0d19"
SESSION = next((FIXTURES / "pi" / "sessions").glob("*/*.jsonl"))


def test_the_branch_last_seen_with_calls_results_and_usage():
    assert detect(SESSION).name == "pi"
    (session,) = parse_path(SESSION)
    assert (session.id, session.title) == (PID, "Heading level rule")  # session_info.name
    assert (session.cwd, session.project) == ("/home/ana/src/mdlint", "mdlint")
    assert session.resume == ["pi", "--session", PID]
    assert [(m.role, m.text[:20]) for m in session.messages] == [
        ("user", "Which rule flags hea"),
        ("assistant", "Searching the rules."),  # the abandoned first answer is on another branch
        ("assistant", "`src/rules/headings."),
        ("user", "!pytest -q tests/tes"),  # a `!command` the user ran
    ]
    reply = session.messages[1]
    assert reply.thinking == "Search the rules folder for heading levels."
    (bash,) = reply.tools
    assert (bash.args, bash.result) == ({"command": 'grep -rln "level" src/rules/'}, "src/rules/headings.py")
    assert reply.meta["usage"] == {
        "input_tokens": 12,
        "output_tokens": 70,
        "cache_read_input_tokens": 3100,
        "cache_creation_input_tokens": 820,
    }
    assert reply.meta["model"] == "claude-sonnet-4-5"


def test_version_1_files_have_no_ids_and_read_in_order(tmp_path):
    path = tmp_path / "v1.jsonl"
    lines = [
        {
            "type": "session",
            "id": PID,
            "timestamp": "2025-11-20T10:00:00.000Z",
            "cwd": "/w/x",
            "provider": "anthropic",
            "modelId": "claude-sonnet-4-5",
        },
        {
            "type": "message",
            "timestamp": "2025-11-20T10:00:01.000Z",
            "message": {"role": "user", "content": "hello", "timestamp": 1763632801000},
        },
        {
            "type": "message",
            "timestamp": "2025-11-20T10:00:02.000Z",
            "message": {"role": "assistant", "content": [], "stopReason": "aborted", "errorMessage": "Request was aborted"},
        },
        {
            "type": "message",
            "timestamp": "2025-11-20T10:00:03.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
        },
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    (session,) = parse_path(path)
    assert [(m.role, m.text) for m in session.messages] == [("user", "hello"), ("assistant", "hi")]
    assert session.messages[1].meta["model"] == "claude-sonnet-4-5"  # the version 1 header's model
