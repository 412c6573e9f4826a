"""Qwen Code sessions (`~/.qwen/projects/<folder>/chats/<id>.jsonl`).

Fixtures follow QwenLM/qwen-code `packages/core/src/services/chatRecordingService.ts`
@ 015346f1, records as CLI 0.24.7 writes them (the `version` field)."""

from __future__ import annotations

from convo_tui.core.sources import detect, parse_path

from tests.paths import FIXTURES

QID = "5d1e7a3c-8b2f-4c6d-9e0a-1f3b5c7d9e2a"
CHAT = FIXTURES / "qwen" / "projects" / "-home-mei-work-invoicer" / "chats" / f"{QID}.jsonl"


def test_live_branch_thoughts_calls_and_gemini_usage():
    assert detect(CHAT).name == "qwen-code"
    (session,) = parse_path(CHAT)
    assert (session.id, session.title, session.cwd) == (QID, "Invoice cent rounding", "/home/mei/work/invoicer")
    assert session.resume == ["qwen", "--resume", QID]
    assert [(m.role, m.text[:22]) for m in session.messages] == [
        ("user", "Totals are off by one "),
        ("assistant", "Let me find the roundi"),
        ("assistant", "`totals.py` rounds eac"),  # the rewound draft is on a dead branch
    ]
    reply = session.messages[1]
    assert reply.thinking == "Float rounding per line, probably."
    (grep,) = reply.tools
    assert grep.args == {"pattern": "round\\(", "path": "invoicer"}
    assert grep.result.startswith("invoicer/totals.py:8:")  # from the tool_result record, not a user message
    assert reply.meta["usage"] == {
        "input_tokens": 6120,
        "cached_input_tokens": 4096,
        "output_tokens": 79,
        "reasoning_output_tokens": 21,
    }
    assert session.meta == {"cli_version": "0.24.7", "branch": "main"}


def test_claude_code_logs_are_not_taken_for_qwen():
    claude = next((FIXTURES / "claude_code").rglob("*.jsonl"))
    assert detect(claude).name == "claude-code"
