"""SpecStory Markdown, both forms: exact messages and turns through `convo-tui show --json`.

Fixtures follow specstoryai/getspecstory Markdown v2.1.0 (`pkg/markdown/markdown.go`) and the older extension's Markdown of 2025."""

from __future__ import annotations

import json
from pathlib import Path

from convo_tui.cli.main import main
from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

HISTORY = FIXTURES / "specstory" / "widgets" / ".specstory" / "history"
OLD = HISTORY / "2025-01-15_10-23-45-fixing-the-login-redirect.md"
V2 = HISTORY / "2025-12-02_12-49Z-remove-the-smithery-integration.md"
CUT = HISTORY / "2025-12-03_08-00Z-cut-in-a-tool-block.md"


def show_json(path: Path, capsys) -> dict:
    assert main(["show", str(path), "--json"]) == 0
    (doc,) = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    return doc


def msg(id: str, role: str, text: str, ts: str | None = None, thinking: str = "", tools: list | None = None) -> dict:
    return {
        "id": id,
        "role": role,
        "text": text,
        "thinking": thinking,
        "timestamp": ts,
        "tools": tools or [],
        "virtual": False,
        "sidechain": False,
    }


def turn(index, users, ais, user_text, ai_text, tools, ts=None) -> dict:
    return {
        "index": index,
        "user_message_ids": users,
        "ai_message_ids": ais,
        "user_text": user_text,
        "ai_text": ai_text,
        "combined_text": f"用户: {user_text}\n\nAI: {ai_text}",
        "tools": tools,
        "timestamp": ts,
    }


ANSWER = '`next` is undefined when the query has no `next` parameter. Use a default:\n\n```ts\nredirect(next ?? "/")\n```'
TEST_ANSWER = "Yes: add a case to `tests/router.test.ts` that logs in without `next`."


def test_older_form(capsys):
    doc = show_json(OLD, capsys)
    assert doc["session"] == {
        "id": OLD.stem,  # no session comment in the older form
        "title": "Fixing the login redirect",
        "project": "widgets",  # the folder holding .specstory
        "source": "specstory",
        "path": str(OLD),
        "started_at": "2025-01-15T10:23:45+00:00",
        "updated_at": None,
        "cwd": None,
        "resume": None,  # a Cursor chat exported by SpecStory: no command reopens it
    }
    assert doc["messages"] == [
        msg("msg-0", "user", "Why does login redirect to /undefined?"),
        msg("msg-1", "assistant", "Let me look at the router."),
        msg("msg-2", "assistant", "", tools=[{"name": "read_file", "args": {"summary": "Read file: src/router.ts"}}]),
        msg("msg-3", "assistant", ANSWER),
        msg("msg-4", "user", "Thanks! Does it also need a test?"),
        # the result block (with a fenced `---` and header inside) is skipped; the empty last message dropped
        msg("msg-5", "assistant", TEST_ANSWER, tools=[{"name": "codebase_search", "args": {}}]),
    ]
    assert doc["turns"] == [
        turn(
            0,
            ["msg-0"],
            ["msg-1", "msg-2", "msg-3"],
            "Why does login redirect to /undefined?",
            f"Let me look at the router.\n\n{ANSWER}",
            ["read_file"],
        ),
        turn(1, ["msg-4"], ["msg-5"], "Thanks! Does it also need a test?", TEST_ANSWER, ["codebase_search"]),
    ]


def test_markdown_v2_form(capsys):
    doc = show_json(V2, capsys)
    assert doc["session"] == {
        "id": "227b9a24-168c-4d87-810b-9ed83e62101e",
        "title": "Remove the smithery integration",
        "project": "widgets",
        "source": "specstory",
        "path": str(V2),
        "started_at": "2025-12-02T12:49:00+00:00",
        "updated_at": "2025-12-02T12:55:00+00:00",
        "cwd": None,
        "resume": None,
    }
    tools = [
        {
            "name": "grep",
            "args": {
                "type": "search",
                "summary": 'Grep for "smithery" • 2 matches',
                "description": "Output mode: files_with_matches",
            },
        },
        {
            "name": "search_replace",
            "args": {"type": "write", "summary": "Edit file: src/types.ts", "path": "src/types.ts"},
            "result": "-   smitheryApiKey?: string;",
        },
        {
            "name": "run_terminal_cmd",
            "args": {
                "type": "shell",
                "summary": "Run command: cd /home/dev/widgets && npm test",
                "command": "cd /home/dev/widgets && npm test",
            },
            "result": "</tool-use>\n_**User**_\n---",  # output that looks like markup is still output
        },
    ]
    agent_text = "I found it in one file. Removing it now.\n\nDone: smithery is gone and the tests pass."
    assert doc["messages"] == [
        msg("msg-0", "user", "remove smithery entirely", "2025-12-02T12:49:00+00:00"),
        # `---` separates parts of one agent message; the `Tool use:` line inside <think> is thinking
        msg(
            "msg-1", "assistant", agent_text, None, "The user wants smithery gone. Let me grep for it.\nTool use: **grep**", tools
        ),
        msg("msg-2", "user", "also drop it from the changelog?", "2025-12-02T12:55:00+00:00"),
        msg("msg-3", "assistant", "No: the changelog is generated. I left it alone."),
    ]
    assert doc["turns"] == [
        turn(
            0,
            ["msg-0"],
            ["msg-1"],
            "remove smithery entirely",
            agent_text,
            ["grep", "search_replace", "run_terminal_cmd"],
            "2025-12-02T12:49:00+00:00",
        ),
        turn(
            1,
            ["msg-2"],
            ["msg-3"],
            "also drop it from the changelog?",
            "No: the changelog is generated. I left it alone.",
            [],
            "2025-12-02T12:55:00+00:00",
        ),
    ]
    (session,) = parse_path(V2)
    assert session.messages[1].meta == {"model": "claude-4.5-opus-high-thinking"}
    assert session.warnings == []


def test_file_cut_inside_a_tool_block_is_partial_with_a_warning(capsys):
    assert main(["show", str(CUT), "--json"]) == 0
    captured = capsys.readouterr()
    (doc,) = [json.loads(line) for line in captured.out.splitlines()]
    assert doc["messages"] == [
        msg("msg-0", "user", "which port does the server listen on?", "2025-12-03T08:00:00+00:00"),
        msg(
            "msg-1",
            "assistant",
            "Let me check the config.",
            tools=[{"name": "read_file", "args": {"type": "read", "summary": "Read file: config.toml", "path": "config.toml"}}],
        ),
    ]
    warning = f"{CUT}:19: tool block opened here is not closed before the file ends"
    assert captured.err == f"convo-tui: warning: {warning}\n"


def test_claude_code_flavour_with_timestamp_heading_and_sidechain(tmp_path):
    path = tmp_path / "notes" / "2026-07-13_13-40-49Z.md"
    path.parent.mkdir()
    path.write_text(
        "<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n# 2026-07-13 13:40:49Z\n\n"
        "<!-- Claude Code Session 5c7d5c23-0691-4467-b98e-0fb865b4a639 (2026-07-13 13:40:49Z) -->\n\n"
        "_**User (2026-07-13 13:40:49Z)**_\n\nfix the flaky test in app.py\n\n---\n\n"
        "_**Agent (claude-opus-4-8 2026-07-13 13:40:56Z)**_\n\nI'll look at the test first.\n\n"
        "_**User - sidechain (2026-07-13 13:41:00Z)**_\n\nsearch for flaky\n\n"
        "_**Agent (claude-opus-4-8 2026-07-13 13:41:01Z)**_\n\n"
        '<tool-use data-tool-type="shell" data-tool-name="Bash"><details>\n<summary>Tool use: **Bash**</summary>\n'
        "`pytest -q`\n\n```text\n_**User**_\n1 failed\n```\n</details></tool-use>\n\n"
        "_**Agent (claude-opus-4-8 2026-07-13 13:42:30Z)**_\n\nDone.\n",
        encoding="utf-8",
    )
    assert detect(path).name == "specstory"
    (session,) = parse_path(path)
    assert session.id == "5c7d5c23-0691-4467-b98e-0fb865b4a639"
    assert session.title == "fix the flaky test in app.py"  # a bare timestamp heading is no title
    assert session.project == "notes"  # no .specstory folder: the file's folder
    assert [(m.role, m.text, m.sidechain, [t.name for t in m.tools]) for m in session.messages] == [
        ("user", "fix the flaky test in app.py", False, []),
        ("assistant", "I'll look at the test first.", False, []),
        ("user", "search for flaky", True, []),
        ("assistant", "", False, ["Bash"]),
        ("assistant", "Done.", False, []),
    ]
    assert session.messages[1].meta == {"model": "claude-opus-4-8"}
    assert [t.ai_message_ids for t in session.turns] == [["msg-1", "msg-3", "msg-4"]]
