"""Cline and Roo Code task folders: the human's words only, tool results on their calls.

Fixtures follow cline/cline 3.x and RooCodeInc/Roo-Code 3.x task folders (`api_conversation_history.json`)."""

from __future__ import annotations

from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

ROOT = FIXTURES / "cline"
CLINE = ROOT / "saoudrizwan.claude-dev" / "tasks" / "1736424000123" / "api_conversation_history.json"
ROO = ROOT / "rooveterinaryinc.roo-cline" / "tasks" / "0f3a9c2e-5b7d-4e1f-a2c4-6d8e0f1a3b5c" / "api_conversation_history.json"


def test_cline_xml_tools_and_the_human_words():
    assert detect(CLINE).name == "cline"
    assert detect(CLINE.with_name("ui_messages.json")) is None  # a companion, not a second session
    (session,) = parse_path(CLINE)
    assert (session.id, session.project, session.cwd, session.resume) == (
        "1736424000123",
        "notes-api",
        "/home/eva/dev/notes-api",
        None,
    )
    assert session.meta == {"extension": "saoudrizwan.claude-dev"}
    assert session.started_at.isoformat() == "2025-01-09T12:00:00.123000+00:00"
    users = [m.text for m in session.messages if m.role == "user"]
    # no <environment_details>, no "[read_file ...] Result:", no resumption boilerplate
    assert users == [
        "The /notes endpoint returns 500 when the body is empty. Make it return 400.",
        "use zod for the validation instead",
        "also add a test for it",
    ]
    read = session.messages[1]
    assert read.thinking == "I need to see the handler for POST /notes first."
    assert (read.tools[0].name, read.tools[0].args) == ("read_file", {"path": "src/server.ts"})
    assert read.tools[0].result.startswith("app.post('/notes'")
    replace = session.messages[2]
    assert replace.text == "The handler parses the body without checking it."
    assert replace.tools[0].args["path"] == "src/server.ts"
    assert "denied" in replace.tools[0].result and "zod" not in replace.tools[0].result
    test_run = session.messages[4]
    assert test_run.tools[0].args == {"command": "npm test", "requires_approval": "false"}
    assert test_run.tools[0].result.endswith("Tests: 14 passed, 14 total")
    completion = session.messages[5]
    assert completion.text == "POST /notes now validates the body with zod and answers 400 when `text` is missing."
    assert len(session.turns) == 3


def test_roo_native_tool_use_with_times():
    (session,) = parse_path(ROO)
    assert (session.project, session.cwd) == ("pricing", "c:/Users/tom/src/pricing")
    assert [(m.role, m.text[:20]) for m in session.messages] == [
        ("user", "Why does `round_pric"),
        ("assistant", "Let me check how it "),
        ("assistant", "2.675 is stored as 2"),
    ]
    assert session.messages[1].tools[0].result.startswith("<files><file><path>prices.py")
    assert session.messages[2].thinking == "2.675 is 2.67499999... in binary."
    assert session.started_at.isoformat() == "2025-07-01T08:53:20+00:00"
