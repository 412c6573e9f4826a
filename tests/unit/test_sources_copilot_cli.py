"""GitHub Copilot CLI session logs (`~/.copilot/session-state/<id>/events.jsonl`).

Fixtures follow github/copilot-cli 1.0.63 event logs, fields checked against the event schema
shipped in the npm package @github/copilot-linux-x64 1.0.102 (`session-events.schema.json`)."""

from __future__ import annotations

import json

from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

SESSION = "4e2b9d71-0c3a-4f58-9b6e-2a7d1c5f8e30"
EVENTS = FIXTURES / "copilot_cli" / "session-state" / SESSION / "events.jsonl"


def test_words_calls_results_and_the_workspace_file():
    assert detect(EVENTS).name == "copilot-cli"
    (session,) = parse_path(EVENTS)
    assert (session.id, session.title) == (SESSION, "Units flag ignored with --city")  # workspace.yaml `name`
    assert (session.project, session.cwd) == ("weathercli", "/home/tess/src/weathercli")
    assert session.resume == ["copilot", "--resume", SESSION]
    assert session.started_at.isoformat() == "2026-05-11T07:40:02.118000+00:00"
    assert [(m.role, m.text[:24]) for m in session.messages] == [
        ("user", "The --units flag is igno"),  # `content`, not the `transformedContent` with injected time
        ("assistant", ""),
        ("assistant", "`cli.py` returns at line"),
    ]
    asked = session.messages[1]
    assert asked.thinking == "Two flags, one ignored: probably an early return in the arg parsing."
    (view,) = asked.tools  # once: `tool.execution_start` repeats the call
    assert (view.name, view.args) == ("view", {"path": "/home/tess/src/weathercli/cli.py"})
    assert view.result.startswith("12. if args.city:")
    assert asked.meta == {"model": "claude-sonnet-4.6", "usage": {"output_tokens": 57}}
    assert session.meta["cli_version"] == "1.0.63"
    assert session.meta["session_usage"]["cache_read_tokens"] == 15800


def test_ephemeral_deltas_and_system_prompt_are_not_messages():
    (session,) = parse_path(EVENTS)
    assert not any("shortened" in m.text or m.text == "cli.py" for m in session.messages)


def test_a_saved_stdout_log_and_string_arguments(tmp_path):
    """`copilot -p ... --output-format json` prints the same events, a `result` line last;
    older builds wrote `arguments` as a JSON string and `result` as a bare string."""
    path = tmp_path / "run.jsonl"
    lines = [
        {
            "type": "session.start",
            "data": {"sessionId": SESSION, "context": {"cwd": "/w/app"}},
            "id": "1",
            "timestamp": "2026-05-11T07:00:00Z",
        },
        {"type": "user.message", "data": {"content": "list files"}, "id": "2", "timestamp": "2026-05-11T07:00:01Z"},
        {
            "type": "assistant.message",
            "data": {"content": "", "toolRequests": [{"toolCallId": "c1", "name": "bash", "arguments": '{"command": "ls"}'}]},
            "id": "3",
            "timestamp": "2026-05-11T07:00:02Z",
        },
        {
            "type": "tool.execution_complete",
            "data": {"toolCallId": "c1", "success": True, "result": "a.py\nb.py"},
            "id": "4",
            "timestamp": "2026-05-11T07:00:03Z",
        },
        {"type": "result", "timestamp": "2026-05-11T07:00:04Z", "sessionId": SESSION, "exitCode": 0},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    (session,) = parse_path(path)
    (call,) = session.messages[1].tools
    assert (call.args, call.result) == ({"command": "ls"}, "a.py\nb.py")
    assert session.cwd == "/w/app"


def test_a_resume_id_of_another_shape_gives_no_command(tmp_path):
    path = tmp_path / "events.jsonl"
    text = EVENTS.read_text(encoding="utf-8").replace(SESSION, "--config=/tmp/evil")
    path.write_text(text, encoding="utf-8")
    (session,) = parse_path(path)
    assert session.id == "--config=/tmp/evil" and session.resume is None
