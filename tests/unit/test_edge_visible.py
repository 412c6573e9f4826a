"""Searches of the embedded store leave out the `visible` condition while no
point is hidden (core/store/edge_reads.py): the same hits as with it, hidden
points never shown, and a search a write overlapped run again."""

from __future__ import annotations

import pytest
from convo_tui.core.store import edge_reads
from convo_tui.core.store.base import Cond, Filter, Point, Query, SparseVec
from convo_tui.core.store.edge import EdgeStore
from convo_tui.core.store.edge_facets import FOLDED, faceted_filter

SHOWN = Filter(must=(Cond("visible", value=True), Cond("level", value="turn")))


def point(key: str, visible: bool, words: list[int]) -> Point:
    payload = {"session_id": key.split(":")[0], "level": "turn", "visible": visible, "text": key}
    return Point(key, None, SparseVec(words, [1.0] * len(words)), payload)


@pytest.fixture
def store(tmp_path):
    s = EdgeStore(tmp_path / "index")
    s.ensure(4)
    s.upsert([point(f"s{i}:turn-0", True, [1, 2 + i % 3]) for i in range(12)])
    yield s
    s.close()


def keys(store: EdgeStore, flt: Filter | None = SHOWN) -> list[str]:
    [hits] = store.query([Query(sparse=SparseVec([1, 3], [1.0, 0.5]), filter=flt, limit=20)])
    return sorted(hit.payload["text"] for hit in hits)


def checked(monkeypatch) -> list[list[Query]]:
    """The queries Edge was asked, recorded."""
    asked: list[list[Query]] = []
    real = edge_reads.search

    def recording(main, dense, queries, **kwargs):
        asked.append(list(queries))
        return real(main, dense, queries, **kwargs)

    monkeypatch.setattr(edge_reads, "search", recording)
    return asked


def test_with_no_point_hidden_edge_is_not_asked_to_check_visible_and_finds_the_same(store, monkeypatch):
    everything = keys(store, Filter(must=(Cond("level", value="turn"),)))
    asked = checked(monkeypatch)
    assert keys(store) == everything and len(everything) == 12
    assert [q.filter for q in asked[-1]] == [faceted_filter(Filter(must=(Cond("level", value="turn"),)), FOLDED)]


def test_hidden_points_are_never_found(store, monkeypatch):
    keys(store)  # none hidden yet
    store.upsert([point("new:turn-0", False, [1, 3])])  # written, not yet published
    asked = checked(monkeypatch)
    assert "new:turn-0" not in keys(store)
    assert Cond("visible", value=True) in asked[-1][0].filter.must  # checked while a point is hidden
    store.set_payload({"visible": True}, Filter(must=(Cond("session_id", value="new"),)))  # published
    assert "new:turn-0" in keys(store)
    assert Cond("visible", value=True) not in asked[-1][0].filter.must


def test_a_search_that_a_write_overlapped_runs_again_with_the_condition(store, monkeypatch):
    keys(store)  # no point hidden: known
    real = edge_reads.search
    calls = []

    def writing_meanwhile(main, dense, queries, **kwargs):
        if not calls:  # another thread publishes a hidden point while this search runs
            store.upsert([point("new:turn-0", False, [1, 3])])
        calls.append(queries)
        return real(main, dense, queries, **kwargs)

    monkeypatch.setattr(edge_reads, "search", writing_meanwhile)
    assert "new:turn-0" not in keys(store)
    assert len(calls) == 2 and Cond("visible", value=True) in calls[1][0].filter.must
