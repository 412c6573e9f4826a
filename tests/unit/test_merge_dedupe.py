"""dedupe with a limit: the page the whole dedupe would give, folds and all."""

from __future__ import annotations

import copy
import random

from convo_tui.core.hits import Hit
from convo_tui.core.search.merge import dedupe

TEXTS = [
    "how do I rotate the redis password without downtime",
    "how do I rotate the redis password without a downtime",  # a twin of the first
    "the qdrant collection needs a payload index on session_id",
    "the qdrant collection needs a payload index on session_id.",
    "pytest fixture fails only on CI",
    "数据库连接池怎么配置",
]


def card(rank: int, session: str, text: str) -> Hit:
    return Hit(
        kind="turn",
        session_id=session,
        session_title="",
        project="",
        source="",
        path="",
        turn_index=rank,
        message_ids=[f"m{rank}"],
        matched_message_ids=[f"m{rank}"],
        similarity=random.random(),
        score=1.0 - rank / 100,
        timestamp=None,
        user_text=text,
        ai_text="",
    )


def test_a_twin_ranked_after_the_page_still_folds_into_its_card():
    ranked = [card(0, "a", TEXTS[0]), card(1, "b", TEXTS[2]), card(2, "c", TEXTS[4]), card(3, "a", TEXTS[1])]
    page = dedupe(copy.deepcopy(ranked), 2)
    assert [c.turn_index for c in page] == [0, 1]
    assert page[0].matched_message_ids == ["m0", "m3"]


def test_the_page_is_the_whole_dedupe_cut_to_it():
    rng = random.Random(7)
    random.seed(7)
    for _ in range(300):
        ranked = [card(i, rng.choice("abc"), rng.choice(TEXTS)) for i in range(rng.randint(0, 25))]
        limit = rng.randint(0, 12)
        assert dedupe(copy.deepcopy(ranked), limit) == dedupe(copy.deepcopy(ranked))[:limit]
