"""The faceted layouts (core/store/edge_facets.py): the fields filters only test
for a value share one Edge index, and every filter finds what it found when
each field had its own, in the first faceted layout and in the folded one
(`key` and `session_id` in the facets too)."""

from __future__ import annotations

import random

import pytest
import qdrant_edge as qe
from convo_tui.core.store.base import PAYLOAD_INDEXES, Cond, Filter, Point, Query, SparseVec, point_id
from convo_tui.core.store.edge import EdgeStore
from convo_tui.core.store.edge_facets import (
    FACETED,
    FACETED_INDEXES,
    FACETS,
    FOLDED,
    FOLDED_INDEXES,
    facet,
    faceted_filter,
    facets_of,
    indexes,
    layout,
)
from convo_tui.core.store.edge_schema import INDEX_SCHEMA, dense_config, main_config

DIM = 8
# Values each faceted field takes in the generated points (None: the field is absent).
VALUES: dict[str, list[object]] = {
    "level": ["turn", "message", "session", None],
    "project": ["alpha", "beta", "a=b", None],
    "source": ["claude", "codex", None],
    "role": ["user", "ai", None],
    "tool_keys": [["bash"], ["bash", "read"], [], None],
    "machine": ["laptop", None],
    "has_tools": [True, False, None],
    "lang": ["cjk", "latin", None],
}


def test_facets_name_each_value_of_each_faceted_field():
    payload = {"level": "turn", "tool_keys": ["bash", "read"], "has_tools": 1, "project": None, "text": "x", "key": "k"}
    assert facets_of(payload, FACETED) == [
        facet("has_tools", 1),
        facet("level", "turn"),
        facet("tool_keys", "bash"),
        facet("tool_keys", "read"),
    ]
    assert facets_of(payload, FOLDED) == [
        facet("has_tools", 1),
        facet("key", "k"),
        facet("level", "turn"),
        facet("tool_keys", "bash"),
        facet("tool_keys", "read"),
    ]
    assert facets_of({"tool_keys": []}, FOLDED) == []
    assert facet("key", "s1:turn-2") == facet("key", "s1:turn-2") != facet("session_id", "s1:turn-2")
    assert facet("has_tools", True) == facet("has_tools", 1) != facet("has_tools", 0)
    assert len({facet(f, v) for f in ("level", "project", "source") for v in ("turn", "alpha", "claude", "x")}) == 12
    assert all(-(2**63) <= facet("project", str(i)) < 2**63 for i in range(100))


def test_a_filter_on_faceted_fields_asks_the_facets_and_leaves_the_others():
    flt = Filter(
        must=(Cond("visible", value=True), Cond("level", value="turn"), Cond("has_tools", value=True)),
        must_not=(Cond("source", any=("codex", "cursor")), Cond("timestamp", gte=5.0)),
    )
    assert faceted_filter(flt, FACETED) == Filter(
        must=(Cond("visible", value=True), Cond(FACETS, value=facet("level", "turn")), Cond(FACETS, value=facet("has_tools", 1))),
        must_not=(Cond(FACETS, any=(facet("source", "codex"), facet("source", "cursor"))), Cond("timestamp", gte=5.0)),
    )
    assert faceted_filter(None, FOLDED) is None
    with pytest.raises(ValueError, match="'lang'"):
        faceted_filter(Filter(must=(Cond("lang", gte=1.0),)), FACETED)
    keyed = Filter(must=(Cond("key", any=("a", "b")), Cond("session_id", value="s")))
    assert faceted_filter(keyed, FACETED) == keyed
    assert faceted_filter(keyed, FOLDED) == Filter(
        must=(Cond(FACETS, any=(facet("key", "a"), facet("key", "b"))), Cond(FACETS, value=facet("session_id", "s")))
    )


def test_each_layout_has_one_index_for_its_faceted_fields():
    assert set(FACETED_INDEXES) == (set(PAYLOAD_INDEXES) - FACETED) | {FACETS}
    assert set(FOLDED_INDEXES) == (set(PAYLOAD_INDEXES) - FOLDED) | {FACETS}
    assert set(PAYLOAD_INDEXES) > FOLDED > FACETED
    assert indexes(frozenset()) == PAYLOAD_INDEXES
    assert indexes(FACETED) == FACETED_INDEXES and indexes(FOLDED) == FOLDED_INDEXES
    # Read back from a shard's indexes: a new shard has none yet, and gets the folded layout.
    assert layout({}) == FOLDED
    assert layout(PAYLOAD_INDEXES) == frozenset()
    assert layout(FACETED_INDEXES) == FACETED
    assert layout(FOLDED_INDEXES) == FOLDED


def _points(rng: random.Random, count: int) -> list[Point]:
    points = []
    for i in range(count):
        payload: dict[str, object] = {"session_id": f"s{i % 7}", "visible": True, "timestamp": float(i), "text": f"t{i}"}
        for field, values in VALUES.items():
            value = rng.choice(values)
            if value is not None:
                payload[field] = value
        dense = [1.0 if j == i % DIM else 0.1 for j in range(DIM)] if i % 3 else None
        points.append(Point(f"p{i}", dense, SparseVec([i % 5, 9], [1.0, 0.5]), payload))
    return points


# What filters ask of the two fields the folded layout adds to the facets.
KEYED: dict[str, list[object]] = {"key": [f"p{i}" for i in range(0, 120, 7)], "session_id": [f"s{i}" for i in range(8)]}


def _older_layout(path, schema: dict[str, str]) -> None:
    """An index made by an older convo-tui: both shards with these payload indexes."""
    (path / "shard").parent.mkdir(parents=True, exist_ok=True)
    for name, config in (("dense", dense_config(DIM)), ("shard", main_config())):
        shard = qe.EdgeShard.create(str(path / name), config)
        for field, kind in schema.items():
            shard.update(qe.UpdateOperation.create_field_index(field, INDEX_SCHEMA[kind]))
        shard.close()


def _random_filter(rng: random.Random) -> Filter:
    def cond() -> Cond:
        field = rng.choice([*sorted(VALUES), *KEYED])
        asked = VALUES.get(field) or KEYED[field]
        values = sorted({v for vs in asked for v in (vs if isinstance(vs, list) else [vs]) if v is not None}, key=str)
        if rng.random() < 0.5:
            return Cond(field, value=rng.choice(values))
        return Cond(field, any=tuple(rng.sample(values, rng.randint(1, len(values)))))

    must = tuple(cond() for _ in range(rng.randint(0, 2)))
    must_not = tuple(cond() for _ in range(rng.randint(0, 1)))
    return Filter(must=(Cond("visible", value=True), *must), must_not=must_not)


def test_every_filter_finds_in_the_faceted_layouts_what_it_found_with_an_index_a_field(tmp_path):
    rng = random.Random(25)
    points = _points(rng, 120)
    _older_layout(tmp_path / "old", PAYLOAD_INDEXES)
    _older_layout(tmp_path / "faceted", FACETED_INDEXES)
    with EdgeStore(tmp_path / "old") as old, EdgeStore(tmp_path / "faceted") as first, EdgeStore(tmp_path / "new") as new:
        for store in (old, first, new):
            store.ensure(DIM)
        assert (old.facet_fields, first.facet_fields, new.facet_fields) == (frozenset(), FACETED, FOLDED)
        assert not old.faceted and first.faceted and new.faceted
        assert set(old._need().info().payload_schema) == set(PAYLOAD_INDEXES)
        assert set(first._need().info().payload_schema) == set(FACETED_INDEXES)
        for shard in (new._need(), new._need_dense()):
            assert set(shard.info().payload_schema) == set(FOLDED_INDEXES)
        # What Edge is asked: the folded store's conditions on key and session_id are facets
        # (Edge would find the same points without, by reading every candidate's payload).
        keyed = Filter(must=(Cond("key", value="p1"), Cond("session_id", any=("s1", "s2"))))
        assert new._filter(keyed) == Filter(
            must=(
                Cond(FACETS, value=facet("key", "p1")),
                Cond(FACETS, any=(facet("session_id", "s1"), facet("session_id", "s2"))),
            )
        )
        assert first._filter(keyed) == old._filter(keyed) == keyed
        for store in (old, first, new):
            store.upsert(points)
            store.optimize()
        sparse, dense = SparseVec([1, 9], [1.0, 0.2]), [0.1] * (DIM - 1) + [1.0]
        matched = by_key = 0
        for _ in range(150):
            flt = _random_filter(rng)
            found = []
            for store in (old, first, new):
                count = store.count(flt)
                scrolled = sorted(p.payload["key"] for p in store.scroll(flt))
                queries = [Query(sparse=sparse, filter=flt, limit=200), Query(dense=dense, filter=flt, limit=200)]
                hits = [sorted(h.payload["key"] for h in got) for got in store.query(queries)]
                found.append((count, scrolled, hits))
            assert found[0] == found[1] == found[2], flt
            matched += found[0][0] > 0
            by_key += any(c.key in KEYED for c in (*flt.must, *flt.must_not)) and found[0][0] > 0
        assert matched > 50, "most random filters match some points"
        assert by_key > 10, "filters on key and session_id match some points"
        asked = ["p0", "p7", "p14", "nothing"]
        assert [p.payload["key"] for p in old.retrieve(asked)] == [p.payload["key"] for p in new.retrieve(asked)] == asked[:3]


def test_the_facets_stay_inside_the_store(tmp_path):
    with EdgeStore(tmp_path / "index") as store:
        store.ensure(DIM)
        store.upsert(_points(random.Random(1), 6))
        flt = Filter(must=(Cond("visible", value=True),))
        payloads = [
            *(p.payload for p in store.scroll(flt)),
            *(p.payload for p in store.newest(flt, limit=3)),
            *store.payloads([point_id("p1"), point_id("p2")]).values(),
            *(h.payload for got in store.query([Query(sparse=SparseVec([1, 9], [1.0, 1.0]), limit=5)]) for h in got),
            *(h.payload for got in store.query([Query(dense=[1.0] * DIM, limit=5)]) for h in got),
        ]
        assert len(payloads) > 10 and not any(FACETS in p for p in payloads)


def test_a_faceted_field_is_set_only_with_its_point(tmp_path):
    with EdgeStore(tmp_path / "index") as store:
        store.ensure(DIM)
        store.upsert(_points(random.Random(2), 3))
        with pytest.raises(ValueError, match="'project'"):
            store.set_payload({"project": "gamma", "visible": False}, Filter(must=(Cond("session_id", value="s1"),)))
        store.set_payload({"visible": False}, Filter(must=(Cond("level", any=("turn", "message", "session")),)))
        assert store.count(Filter(must=(Cond("visible", value=True),))) == 3 - store.count(
            Filter(must=(Cond("level", any=("turn", "message", "session")),))
        )
