"""SpecStory read right: a pasted document with nested fences does not swallow the
reply, v2 tool bodies keep their command, path and description, dates come from
`# 2025-12-06 19:04:39Z` headings and `2025-12-06_19-04-39Z-...` names."""

from __future__ import annotations

from pathlib import Path

from convo_tui.core.sources import parse_path

from tests.paths import FIXTURES

HISTORY = FIXTURES / "specstory" / "kiosk" / ".specstory" / "history"
PASTED = HISTORY / "2025-03-04_16-20-11-pasting-the-spec.md"
V2 = HISTORY / "2025-12-06_19-04-39Z-flaky-printer-test.md"


def test_nested_fences_in_a_pasted_document_do_not_hide_the_reply():
    (session,) = parse_path(PASTED)
    assert [m.role for m in session.messages] == ["user", "assistant", "user"]
    user, reply, _ = session.messages
    assert user.text.startswith("Here is the spec, implement the config loader:")
    assert user.text.endswith("Keys are case sensitive.\n```")
    assert "_**Assistant**_" not in user.text and "load_config" not in user.text
    assert reply.text.startswith("I'll add `config.py`")
    assert len(session.warnings) == 1 and "code block opened here is not closed" in session.warnings[0]


def test_v2_tool_bodies_keep_command_path_and_description():
    (session,) = parse_path(V2)
    tools = [t for m in session.messages for t in m.tools]
    run, read, grep = tools
    assert run.args["command"] == "CI=1 pytest tests/test_printer.py -q"
    assert run.args["description"] == "Run the printer tests without a device"
    assert run.result == "E   FileNotFoundError: /dev/ttyUSB0\n1 failed, 6 passed"
    assert read.args["path"] == "./kiosk/printer.py"
    assert grep.args["command"] == 'grep -rn "ttyUSB0" kiosk/ tests/'
    assert grep.args["description"] == "Find every use of the port"
    assert grep.result == 'kiosk/printer.py:1:PORT = "/dev/ttyUSB0"'


def test_dates_from_the_heading_and_the_file_name(tmp_path: Path):
    (session,) = parse_path(V2)
    assert session.started_at.isoformat() == "2025-12-06T19:04:39+00:00"
    assert session.title == "the printer test fails on CI"
    renamed = tmp_path / "2025-12-06_19-04-39Z-no-heading.md"
    renamed.write_text(V2.read_text(encoding="utf-8").replace("# 2025-12-06 19:04:39Z\n", ""), encoding="utf-8")
    (plain,) = parse_path(renamed)
    assert plain.started_at.isoformat() == "2025-12-06T19:04:39+00:00"


def test_a_claude_code_session_exported_by_specstory_can_be_resumed():
    (session,) = parse_path(V2)
    assert session.id == "6e5d4c3b-2a19-4f08-b7c6-d5e4f3a2b1c0"
    assert session.resume == ["claude", "--resume", "6e5d4c3b-2a19-4f08-b7c6-d5e4f3a2b1c0"]
    assert session.cwd == str(HISTORY.parent.parent.absolute())
