"""The embedded store asks Edge once, unfiltered, for keyword queries that differ
only by their level (core/store/edge_levels.py), and answers each level as its
own filtered query would: levels the merged list leaves short are asked again."""

from __future__ import annotations

import pytest
import qdrant_edge as qe
from convo_tui.core.store import edge_query
from convo_tui.core.store.base import PAYLOAD_INDEXES, Cond, Filter, Point, Query, SparseVec
from convo_tui.core.store.edge import EdgeStore
from convo_tui.core.store.edge_levels import SPREAD, level_searches
from convo_tui.core.store.edge_schema import INDEX_SCHEMA, dense_config, main_config

WORD = SparseVec([1], [1.0])


def level(name: str, *more: Cond) -> Filter:
    return Filter(must=(Cond("visible", value=True), *more, Cond("level", value=name)))


def point(key: str, level_name: str, weight: float, project: str = "p") -> Point:
    payload = {"session_id": key.split(":")[0], "level": level_name, "visible": True, "text": key, "project": project}
    return Point(key, None, SparseVec([1, 2], [weight, 1.0]), payload)


def _layout_before_facets(path) -> None:
    """An index made before the faceted layout: `level` a field with an index of its own."""
    path.mkdir(parents=True)
    for name, config in (("dense", dense_config(4)), ("shard", main_config())):
        shard = qe.EdgeShard.create(str(path / name), config)
        for field, kind in PAYLOAD_INDEXES.items():
            shard.update(qe.UpdateOperation.create_field_index(field, INDEX_SCHEMA[kind]))
        shard.close()


@pytest.fixture(params=["faceted", "before facets"])
def store(tmp_path, request):
    """60 messages all scoring above 20 turns (distinct scores: no ties to order),
    in both layouts: each tells a hit's level its own way."""
    if request.param == "before facets":
        _layout_before_facets(tmp_path / "index")
    s = EdgeStore(tmp_path / "index")
    s.ensure(4)
    assert s.faceted == (request.param == "faceted")
    s.upsert([point(f"m{i}:msg-0", "message", 3.0 + i / 10) for i in range(60)])
    s.upsert([point(f"t{i}:turn-0", "turn", 1.0 + i / 100, project="q" if i % 2 else "p") for i in range(20)])
    yield s
    s.close()


def alone(store: EdgeStore, q: Query) -> list[tuple[str, float]]:
    """`q` asked by itself (a lone query is never merged)."""
    [hits] = store.query([q])
    return [(hit.payload["text"], hit.score) for hit in hits]


def both(store: EdgeStore, limit: int, **kw) -> list[list[tuple[str, float]]]:
    queries = [Query(sparse=WORD, filter=level(name), limit=limit, **kw) for name in ("turn", "message")]
    return [[(hit.payload["text"], hit.score) for hit in hits] for hits in store.query(queries)]


@pytest.fixture
def merges(monkeypatch):
    """What each merged search settled and left short, recorded."""
    seen: list[tuple[list[int], list[int]]] = []
    real = edge_query.split

    def recording(group, points, is_faceted):
        settled, short = real(group, points, is_faceted)
        seen.append((sorted(settled), short))
        return settled, short

    monkeypatch.setattr(edge_query, "split", recording)
    return seen


@pytest.mark.parametrize("limit", [2, 5, 12, 30, 100])
def test_each_level_gets_what_its_own_filtered_query_finds(store, merges, limit):
    expected = [alone(store, Query(sparse=WORD, filter=level(name), limit=limit)) for name in ("turn", "message")]
    assert both(store, limit) == expected
    assert len(merges) == 1  # asked as one


def test_a_level_the_merged_list_leaves_short_is_asked_with_its_own_condition(store, merges):
    # limit 5: the merged list holds the best 25 points, all messages; the turns are asked again.
    turns, messages = both(store, 5)
    assert merges == [([1], [0])]
    assert [text for text, _ in turns] == [f"t{i}:turn-0" for i in (19, 18, 17, 16, 15)]
    assert [text for text, _ in messages] == [f"m{i}:msg-0" for i in (59, 58, 57, 56, 55)]


def test_a_merged_list_shorter_than_asked_holds_every_hit_and_settles_both(store, merges):
    both(store, 30)  # 150 asked, 80 match
    assert merges == [([0, 1], [])]


def test_hits_carry_only_the_fields_asked_for(store, merges):
    queries = [Query(sparse=WORD, filter=level(name), limit=30, fields=("key",)) for name in ("turn", "message")]
    turns, messages = store.query(queries)
    assert [hit.payload for hit in turns] == [{"key": f"t{i}:turn-0"} for i in range(19, -1, -1)]
    assert len(messages) == 30 and all(hit.partial for hit in turns + messages)
    assert merges == [([0, 1], [])]  # told apart by what Edge returned, not asked again


def test_terms_come_back_with_merged_hits(store):
    [turns, _] = store.query([Query(sparse=WORD, filter=level(name), limit=3, with_terms=True) for name in ("turn", "message")])
    assert [hit.terms for hit in turns] == [frozenset({1, 2})] * 3


def as_asked(name: str, *more: Cond) -> Filter:
    """A level's filter as the store hands it to `level_searches`: `visible` left out (no point hidden)."""
    return Filter(must=(*more, Cond("level", value=name)))


def test_queries_with_another_condition_or_other_words_stay_apart():
    project = Cond("project", value="q")
    assert level_searches([Query(sparse=WORD, filter=as_asked(name, project), limit=5) for name in ("turn", "message")]) == []
    other = SparseVec([2], [1.0])
    queries = [Query(sparse=WORD, filter=as_asked("turn"), limit=5), Query(sparse=other, filter=as_asked("message"), limit=5)]
    assert level_searches(queries) == []


def test_a_filtered_pair_is_answered_by_its_filters(store, merges):
    project = Cond("project", value="q")
    queries = [Query(sparse=WORD, filter=level(name, project), limit=5) for name in ("turn", "message")]
    turns, messages = store.query(queries)
    assert [hit.payload["text"] for hit in turns] == [f"t{i}:turn-0" for i in (19, 17, 15, 13, 11)]
    assert messages == [] and merges == []


def test_while_a_point_is_hidden_levels_are_asked_apart(store, merges):
    store.upsert(
        [
            Point(
                "new:turn-0", None, SparseVec([1], [9.0]), {"session_id": "new", "level": "turn", "visible": False, "text": "new"}
            )
        ]
    )
    turns, _ = both(store, 3)
    assert "new" not in [text for text, _ in turns] and merges == []


def test_merged_groups_need_distinct_levels_and_the_same_limit():
    same = [Query(sparse=WORD, filter=as_asked("turn"), limit=5)] * 2
    assert level_searches(same) == []
    mixed = [Query(sparse=WORD, filter=as_asked("turn"), limit=5), Query(sparse=WORD, filter=as_asked("message"), limit=6)]
    assert level_searches(mixed) == []
    pair = [Query(sparse=WORD, filter=as_asked(name), limit=5) for name in ("turn", "message")]
    [group] = level_searches(pair)
    assert group.members == ((0, "turn"), (1, "message")) and group.query.limit == 5 * SPREAD and group.query.filter is None
    assert (
        level_searches([Query(sparse=WORD, filter=level(name), limit=5) for name in ("turn", "message")]) == []
    )  # `visible` too
