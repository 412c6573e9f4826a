"""A card's relevance does not depend on the page asked for.

Hybrid search fuses a dense and a BM25 search, each as deep as the page needs
(core/search/pipeline.py). A point only the dense search reached had no
keyword part, so a deeper page (`--limit 100`), whose BM25 search reached it
too, scored it higher and ranked first cards a shorter page left out. On a
history whose sessions share their words (the bench's generated one, as many
a real history's do) that happened to the first cards; here the searches are
made shallow so that a small history shows it, and the same card must score
the same on every page."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from convo_tui.core.library import Library
from convo_tui.core.search import fusion
from convo_tui.core.settings import Settings

from tests.helpers.generated import write

QUERIES = ["connection pool", "readiness probe", "retry the failed deploy", "flaky test in the auth module", "cache"]


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Library:
    root = tmp_path_factory.mktemp("depth")
    start = datetime(2026, 3, 1, tzinfo=UTC)
    for seed in range(24):
        write("claude", root / "src" / f"s{seed}.jsonl", 12, seed, start + timedelta(hours=seed))
    library = Library.open(Settings(index_dir=root / "index", discover_defaults=False, model="all-MiniLM-L6-v2-int8"))
    library.index([root / "src"])
    yield library
    library.close()


def cards(library: Library, query: str, limit: int) -> dict[tuple, float]:
    return {
        (h.session_id, h.kind, h.turn_index, tuple(h.matched_message_ids)): h.score for h in library.search(query, limit=limit)
    }


def test_a_card_scores_the_same_on_a_short_page_and_a_long_one(library: Library, monkeypatch):
    monkeypatch.setattr(fusion, "PREFETCH", 1)  # shallow searches: a page of 4 reads 8 candidates a retriever
    compared = 0
    for query in QUERIES:
        short, long = cards(library, query, 4), cards(library, query, 40)
        for card, score in short.items():
            if card in long:
                compared += 1
                assert long[card] == pytest.approx(score, abs=1e-9), (query, card)
    assert compared >= 2 * len(QUERIES)  # most of the short pages' cards are on the long pages too
