"""A kept scope (core/search/fuzzy_scope.py) scores every text exactly as
fuzzy_score does, and ranks as fuzzy mode's scan did."""

from __future__ import annotations

import random
from types import SimpleNamespace

from convo_tui.core.search.fuzzy import fuzzy_score
from convo_tui.core.search.fuzzy_scope import Scope, text_of

WORDS = ["qdrant", "collection", "snapshot", "deploy", "retry", "webhook", "Cache", "ci", "x", "naïve", "über", "42", "a-b"]


def _point(i: int, rng: random.Random) -> SimpleNamespace:
    def text() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 12)))

    payload = {"session_id": f"s{i % 4}", "turn_index": i % 5}
    for field in ("user_text", "ai_text", "text"):
        if rng.random() < 0.7:
            payload[field] = text()
    return SimpleNamespace(id=f"id{i:03d}", payload=payload)


def test_a_scope_scores_each_text_as_fuzzy_score_does_to_the_last_bit():
    rng = random.Random(7)
    points = [_point(i, rng) for i in range(300)]
    points.append(SimpleNamespace(id="empty", payload={"session_id": "s9", "turn_index": 0}))  # no word at all
    scope = Scope(points)
    for _ in range(60):
        words = [
            rng.choice(["qdrnt", "colection", "snapshot", "deplyo", "z", "webhok", "cache", "42"])
            for _ in range(rng.randint(1, 4))
        ]
        got = scope.scores(words).tolist()
        want = [fuzzy_score(words, text_of(p.payload)) for p in points]
        assert got == want, words
    assert scope.scores([]).tolist() == [0.0] * len(points)


def test_a_scope_ranks_best_first_ties_by_session_turn_and_id():
    rng = random.Random(3)
    points = [_point(i, rng) for i in range(200)]
    scope = Scope(points)
    words = ["retry", "webhok"]
    ranked = scope.ranked(words, 70.0)
    scores = {p.id: fuzzy_score(words, text_of(p.payload)) for p in points}
    by_id = {p.id: p for p in points}
    want = sorted(
        (pid for pid, score in scores.items() if score >= 70.0),
        key=lambda pid: (-scores[pid], by_id[pid].payload["session_id"], by_id[pid].payload["turn_index"], pid),
    )
    assert [r.id for r in ranked] == want and len(want) > 10
    assert [r.score for r in ranked] == [scores[pid] for pid in want]


def test_an_empty_scope_scores_nothing():
    assert Scope([]).ranked(["qdrant"], 0.0) == []
    assert Scope([SimpleNamespace(id="a", payload={})]).scores(["qdrant"]).tolist() == [0.0]
