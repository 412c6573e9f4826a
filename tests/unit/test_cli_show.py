"""`convo-tui show`: human output turn by turn, and `--json` in the serialize shape."""

from __future__ import annotations

import io
import json

import pytest
from convo_tui.cli.main import main
from convo_tui.cli.show import print_sessions, tool_line
from convo_tui.core.model import ToolCall
from convo_tui.core.serialize import session_to_json
from convo_tui.core.sources import parse_path

from tests.paths import FIXTURES

THREADS = FIXTURES / "chat_threads" / "workspace-notes" / ".ai_helper" / "agent" / "memory_repo" / "chat_threads"


def show(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["show", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_human_output_exactly(capsys):
    path = FIXTURES / "openai" / "messages.jsonl"
    code, out, err = show(capsys, str(path))
    assert (code, err) == (0, "")
    assert (
        out
        == f"""How do I create a Qdrant collection?
  id:      messages
  project: openai
  source:  OpenAI chat log (openai)
  path:    {path.absolute()}
  started: 2025-03-01 10:00:00 UTC
  updated: 2025-03-01 10:01:04 UTC
  2 turns · 4 messages

── Turn 0 · 2025-03-01 10:00:00 UTC
👤 User
    How do I create a Qdrant collection?
🤖 AI
    Call create_collection with a vectors config.

── Turn 1 · 2025-03-01 10:01:00 UTC
👤 User
    And sparse vectors?
🤖 AI
    Add sparse_vectors_config with the IDF modifier.
"""
    )


def test_human_output_shows_tools_thinking_and_no_escape_codes(capsys):
    code, out, _ = show(capsys, str(FIXTURES / "cursor" / "real_cursor.txt"))
    assert code == 0
    assert "\x1b[" not in out
    lines = out.splitlines()
    assert "── Turn 0" in lines and "── Turn 1" in lines
    assert "    💭 **Reading the app first**" in lines
    assert "       The user wants a config loader. I should read app.py first." in lines
    assert "    🔧 Read(path=/home/alice/code/my-app/src/app.py)" in lines
    assert "    🔧 Grep(pattern=load_config, path=/home/alice/code/my-app)" in lines
    assert '    🔧 Write(path=/home/alice/code/my-app/src/config.py, contents="""Configuration loading.""" …(+12 lines))' in lines


def test_virtual_messages_are_shown_apart_and_labelled(capsys):
    code, out, _ = show(capsys, str(THREADS / "thread_1234567890"))
    assert code == 0
    body = out.split("\n\n", 1)[1]
    assert body.startswith(
        "·· virtual message: shown to the user, never sent to the AI · 2021-10-05 17:59:48 UTC\n"
        "🤖 AI\n    欢迎使用 My Assistant！你可以让我分析代码。\n\n── Turn 0 · 2021-10-05 17:59:49 UTC\n👤 User\n"
    )
    assert "    📎 thread_1234567890/attached_file.py" in out.splitlines()


@pytest.mark.parametrize(
    "relative",
    [
        "cursor/seed_001_example.txt",
        "cursor/real_cursor.txt",
        "openai/messages.json",
        "openai/rows.jsonl",
        "openai/export.json",
        "chat_threads/workspace-notes/.ai_helper/agent/memory_repo/chat_threads",
    ],
)
def test_json_is_one_serialize_object_per_session_per_line(capsys, relative):
    path = FIXTURES / relative
    code, out, err = show(capsys, str(path), "--json")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    expected = [session_to_json(s) for s in parse_path(path)]
    assert [json.loads(line) for line in lines] == json.loads(json.dumps(expected))
    assert len(lines) == len(expected)


def test_json_of_rows_file_lists_both_conversations(capsys):
    _, out, _ = show(capsys, str(FIXTURES / "openai" / "rows.jsonl"), "--json")
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["session"]["id"] for r in records] == ["conv-b", "conv-a"]
    assert records[1]["turns"][1] == {
        "index": 1,
        "user_message_ids": ["msg-2"],
        "ai_message_ids": ["msg-3"],
        "user_text": "A second",
        "ai_text": "A second answer",
        "combined_text": "用户: A second\n\nAI: A second answer",
        "tools": [],
        "timestamp": "2024-05-01T08:05:00+00:00",
    }


def test_warnings_go_to_stderr_one_line_each(capsys):
    path = FIXTURES / "openai" / "partial.jsonl"
    code, out, err = show(capsys, str(path))
    assert code == 0
    assert "first question" in out
    assert err == f"convo-tui: warning: {path}:3: truncated JSON (ends in the middle of a value)\n"


def test_argument_that_is_not_a_path(capsys):
    code, out, err = show(capsys, "3f2a9c1e-no-such-session")
    assert (code, out, err) == (1, "", "convo-tui: 3f2a9c1e-no-such-session: no such file, folder or indexed session\n")


def test_print_sessions_is_reusable_with_any_stream():
    sessions = parse_path(FIXTURES / "cursor" / "scenario_2_user_followups.txt")
    stream = io.StringIO()
    print_sessions(sessions, as_json=True, out=stream)
    assert json.loads(stream.getvalue())["turns"][0]["user_message_ids"] == ["msg-0", "msg-1"]
    stream = io.StringIO()
    print_sessions(sessions, as_json=False, out=stream)
    assert stream.getvalue().endswith("── Turn 0\n👤 User\n    问题1\n👤 User\n    补充问题1\n🤖 AI\n    回答1和补充问题1\n")


def test_tool_line_clips_long_values():
    line = tool_line(ToolCall("Write", {"path": "a.py", "contents": "x" * 500, "n": 3}))
    assert line == "🔧 Write(path=a.py, contents=" + "x" * 59 + "…, n=3)"
    assert len(tool_line(ToolCall("T", {f"k{i}": "v" * 50 for i in range(5)}))) == 120


def test_a_tool_calls_output_is_shown_under_it_its_start_and_how_much_is_left(capsys, tmp_path):
    """`show` printed the call alone: output a search matched was nowhere to read."""
    code, out, _ = show(capsys, str(FIXTURES / "claude_code" / "4a4a4a4a-2222-4222-8222-00000000cccc.jsonl"))
    assert code == 0
    lines = out.splitlines()
    call = next(i for i, line in enumerate(lines) if line.startswith("    🔧 Edit("))
    assert lines[call + 1] == "      ⇢ The file /Users/ana/src/ledger/totals.py has been updated."
    long = ToolCall("Bash", {"command": "seq 25"}, "\n".join(str(n) for n in range(1, 26)))
    head, more = long.result_head(10)
    assert (head, more) == ([str(n) for n in range(1, 11)], 15)
