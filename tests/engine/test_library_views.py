"""What the library hands the faces: UTC times, fuzzy matched messages, one
session per id while a new generation is being published, retrieve by key."""

import time
from datetime import UTC, datetime, timedelta

import pytest
from convo_tui.core.index.batches import GenerationPoint
from convo_tui.core.index.points import turn_key
from convo_tui.core.search.merge import merge
from convo_tui.core.store.base import Cond, Filter, Scored

from tests.paths import FIXTURES

RELEVANCE = FIXTURES / "relevance"


@pytest.fixture
def lib(relevance_index):
    """The run's shared relevance index (tests/conftest.py: qdrant-setup dated QDRANT_SETUP_MTIME)."""
    return relevance_index


@pytest.fixture
def far_east_zone(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_hit_and_summary_times_are_utc_whatever_the_local_zone(lib, far_east_zone):
    expected = datetime(2026, 1, 20, 12, 0, tzinfo=UTC)
    hit = lib.search("QDRANT_SNAPSHOT_TTL", mode="keyword", limit=1)[0]
    assert hit.session_id == "qdrant-setup"
    assert (hit.timestamp, hit.timestamp.utcoffset()) == (expected, timedelta(0))
    assert hit.to_json()["timestamp"] == "2026-01-20T12:00:00+00:00"
    summary = lib.session_summary("qdrant-setup")
    assert (summary.updated_at, summary.updated_at.utcoffset()) == (expected, timedelta(0))
    assert summary.to_json()["updated_at"] == "2026-01-20T12:00:00+00:00"


def test_fuzzy_turn_card_marks_the_messages_that_match(lib):
    hit = lib.search("qdrnat colection", mode="fuzzy", limit=1)[0]
    assert (hit.session_id, hit.kind, hit.turn_index) == ("qdrant-setup", "turn", 0)
    # The user asked about the "Qdrant collection"; the AI's answer names neither word.
    assert hit.matched_message_ids == ["msg-0"]
    assert hit.message_ids == ["msg-0", "msg-1"]


def _second_visible_generation(lib, session_id):
    """What a reader sees between the indexer's visibility flip and its delete."""
    points = list(lib.store.scroll(Filter(must=(Cond("session_id", value=session_id),))))
    generation = max(p.payload["generation"] for p in points) + 1
    newer = [
        GenerationPoint(
            p.payload["key"], None, None, {**p.payload, "generation": generation, "session_title": "newer"}, generation
        )
        for p in points
        if p.payload["level"] == "session"
    ]
    lib.store.upsert(newer)
    return generation


def test_a_session_is_listed_once_while_two_generations_are_visible(lib):
    before = lib.projects()
    generation = _second_visible_generation(lib, "team-lunch")
    try:
        assert [s.id for s in lib.sessions()].count("team-lunch") == 1
        assert lib.projects() == before
        assert lib.session_summary("team-lunch").title == "newer"
        assert lib.session("team-lunch").id == "team-lunch"
    finally:
        lib.store.delete(Filter(must=(Cond("generation", value=generation),)))


def test_two_generations_of_one_turn_make_one_card():
    def scored(generation, score):
        payload = {
            "session_id": "s",
            "turn_index": 0,
            "message_ids": ["msg-0", "msg-1"],
            "user_text": "u",
            "ai_text": "a",
            "generation": generation,
        }
        return Scored(id=f"id{generation}", score=score, payload=payload)

    cards = merge([scored(1, 0.5), scored(2, 0.4)], [], None, 10, turn_bonus=1.0)
    assert [(c.session_id, c.turn_index, c.score) for c in cards] == [("s", 0, 0.5)]


def test_retrieve_finds_indexed_points_by_key(lib):
    key = turn_key("qdrant-setup", 1)
    [point] = lib.store.retrieve([key, "nope:turn-0"])
    assert point.payload["key"] == key
    assert point.payload["user_text"] == "The snapshots pile up on disk. How long are they kept?"
    assert point.payload["visible"] is True
