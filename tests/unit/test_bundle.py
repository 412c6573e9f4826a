"""core/bundle.py: the most relevant past turns as Markdown, never over the token budget."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from convo_tui.core.bundle import build_bundle, estimate_tokens
from convo_tui.core.hits import Hit
from convo_tui.core.redact import redact


def hit(number: int, words: int) -> Hit:
    return Hit(
        kind="turn",
        session_id=f"session-{number}",
        session_title=f"Session {number}",
        project="shop",
        source="codex",
        path="",
        turn_index=number,
        message_ids=[],
        matched_message_ids=[],
        similarity=0.5,
        score=1 - number / 100,
        timestamp=datetime(2026, 3, number + 1, tzinfo=UTC),
        user_text=f"question {number}",
        ai_text=" ".join(f"word{i}" for i in range(words)),
    )


def test_estimate_counts_cjk_characters_one_each():
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("数据库回滚") == 5
    assert estimate_tokens("用 ensure(dim) 创建") == 3 + 4  # 3 CJK, 14 others


@pytest.mark.parametrize("budget", [200, 300, 500, 1000, 4000])
def test_never_over_the_budget_best_first(budget):
    hits = [hit(n, 120) for n in range(10)]
    bundle = build_bundle(hits, "how do refunds work", budget)
    assert bundle.tokens <= budget and bundle.tokens == estimate_tokens(bundle.text)
    assert bundle.text.startswith(
        "# Past conversations relevant to: how do refunds work\n\n## Session 0 (shop, 2026-03-01, session session-0, turn 0)"
    )
    listed = [turn["turn_index"] for turn in bundle.turns]
    assert listed == list(range(len(listed)))  # in rank order, none skipped
    assert bundle.truncated == bundle.text.rstrip().endswith("…")


def test_a_large_budget_takes_every_turn_whole():
    bundle = build_bundle([hit(n, 20) for n in range(3)], "q", 10_000)
    assert len(bundle.turns) == 3 and not bundle.truncated and "word19" in bundle.text


def test_secrets_are_masked():
    leaked = hit(0, 3)
    leaked.ai_text = "use ghp_0123456789abcdefghijklmnopqrstuvwxyzAB as the token"
    bundle = build_bundle([leaked], "token", 1000, redact)
    assert "ghp_0123456789" not in bundle.text and "[REDACTED:github-token" in bundle.text
