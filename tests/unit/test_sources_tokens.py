"""Token usage the source files record, kept on the answer it belongs to (`Message.meta["usage"]`)
and counted once by core/stats. Fixtures: tests/fixtures/tokens (hand-written, in the real shapes)."""

from __future__ import annotations

import json

from convo_tui.core.model import Session
from convo_tui.core.sources import parse_path
from convo_tui.core.stats import Tokens, count_sessions, message_tokens

from tests.helpers.sqlite_fixtures import build_tree
from tests.paths import FIXTURES

TOKENS = FIXTURES / "tokens"
CLAUDE = TOKENS / "claude_code" / "3c9e0b52-8a41-4f7d-b2e6-5d1a9c7f0e24.jsonl"
CODEX = TOKENS / "codex" / "rollout-2026-03-03T14-10-00-019cb2d4-5e6f-7a80-9b1c-2d3e4f5a6b7c.jsonl"
GEMINI = next((TOKENS / "gemini").rglob("session-*.json"))
CODEX_TOTALS_ONLY = FIXTURES / "codex/sessions/2025/10/14/rollout-2025-10-14T16-20-00-0199e3a1-7c42-7d10-9b2e-5f6a7b8c9d01.jsonl"


def usages(session: Session) -> dict[str, dict[str, int]]:
    return {m.id: m.meta["usage"] for m in session.messages if "usage" in m.meta}


def test_claude_code_counts_a_reply_written_over_several_lines_once():
    (session,) = parse_path(CLAUDE)
    lines = [json.loads(raw) for raw in CLAUDE.read_text().splitlines()]
    repeated = [ln for ln in lines if ln.get("message", {}).get("id") == "msg_01DryRunRead"]
    assert len(repeated) == 3  # thinking, text and tool_use lines, each with the usage so far
    assert usages(session) == {
        # the last line's count: 190 output tokens, not 8 + 8 + 190
        "msg-1": {"input_tokens": 3, "output_tokens": 190, "cache_creation_input_tokens": 2100, "cache_read_input_tokens": 14800},
        "msg-3": {"input_tokens": 5, "output_tokens": 240, "cache_creation_input_tokens": 600, "cache_read_input_tokens": 16900},
        "msg-5": {"input_tokens": 2, "output_tokens": 60, "cache_creation_input_tokens": 90, "cache_read_input_tokens": 17500},
    }
    sub_agent = session.messages[2]
    assert sub_agent.sidechain and "usage" not in sub_agent.meta  # its own agent file counts it
    assert session.messages[1].text == "I'll read the script first."
    stats = count_sessions([session])
    # Anthropic's cache counts are apart from input_tokens: all three are prompt tokens
    assert stats.by_source["claude-code"].tokens == Tokens(16903 + 17505 + 17592, 190 + 240 + 60)


def test_codex_adds_up_the_requests_of_an_answer_and_reads_a_repeated_count_once():
    (session,) = parse_path(CODEX)
    assert [m.role for m in session.messages] == ["user", "assistant", "user", "assistant"]
    assert usages(session) == {
        # two requests (the shell call, then the answer); the second count was written twice
        "msg-1": {
            "input_tokens": 9800 + 10400,
            "cached_input_tokens": 3200 + 9728,
            "output_tokens": 410 + 150,
            "reasoning_output_tokens": 256 + 64,
        },
        "msg-3": {"input_tokens": 10700, "cached_input_tokens": 10240, "output_tokens": 90},
    }
    stats = count_sessions([session])
    # OpenAI's input already holds the cached tokens and its output the reasoning: the
    # session's count is its last total_token_usage, not more
    assert stats.total.tokens == Tokens(30900, 650)
    assert message_tokens(session.messages[1].meta) == Tokens(20200, 560)


def test_codex_rollout_with_running_totals_only():
    (session,) = parse_path(CODEX_TOTALS_ONLY)
    # the second turn's count repeats the first total: nothing new to count
    assert usages(session) == {
        "msg-1": {"input_tokens": 8120, "cached_input_tokens": 4096, "output_tokens": 512, "reasoning_output_tokens": 320}
    }
    assert count_sessions([session]).total.tokens == Tokens(8120, 512)


def test_opencode_adds_up_the_steps_of_an_answer(tmp_path):
    database = build_tree(TOKENS / "opencode", tmp_path / "opencode") / "opencode.db"
    (session,) = parse_path(database)
    # the message's own `tokens` is the last step only; the two step-finish parts are the whole
    assert usages(session) == {
        "msg-1": {
            "input_tokens": 12 + 8,
            "cache_read_input_tokens": 15000 + 17300,
            "cache_creation_input_tokens": 2200 + 410,
            "output_tokens": (180 + 64) + 95,  # `output` leaves the reasoning out since OpenCode writes `total`
        }
    }
    prompt = 20 + 32300 + 2610
    assert count_sessions([session]).total.tokens == Tokens(prompt, 339)
    assert prompt + 339 == 17456 + 17813  # the two steps' `total`


def test_gemini_counts_thoughts_and_tool_prompts_on_top():
    (session,) = parse_path(GEMINI)
    assert usages(session) == {
        "msg-1": {"input_tokens": 8400, "cached_input_tokens": 6100, "output_tokens": 45 + 130, "reasoning_output_tokens": 130},
        "msg-2": {"input_tokens": 9100 + 350, "cached_input_tokens": 8200, "output_tokens": 210},
    }
    tokens = count_sessions([session]).total.tokens
    assert tokens == Tokens(17850, 385)
    assert tokens.total == 8575 + 9660  # the messages' own `total`


def test_no_usage_where_the_file_records_none(fixtures):
    (session,) = parse_path(fixtures / "claude_code" / "5b5b5b5b-3333-4333-8333-00000000dddd.jsonl")
    assert usages(session) == {}
    assert count_sessions([session]).total.has_tokens is False
