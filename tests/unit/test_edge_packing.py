"""The embedded store packs the fields no index or filter reads into one value
(core/store/edge_packing.py): what Edge holds, what a read gives back, and
indexes written before the packing."""

from __future__ import annotations

import json

import pytest
import qdrant_edge as qe
from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.store.base import Cond, Filter, Point, Query, SparseVec, point_id
from convo_tui.core.store.edge import EdgeStore
from convo_tui.core.store.edge_packing import PACKED, own_fields, pack, unpack
from convo_tui.core.store.edge_schema import to_stored

PAYLOAD = {
    "session_id": "s1",
    "level": "message",
    "project": "alpha",
    "source": "codex",
    "role": "ai",
    "tool_keys": ["bash"],
    "has_tools": True,
    "visible": True,
    "generation": 7,
    "timestamp": 1700000000.25,
    "turn_index": 2,
    "text": 'a "quoted" word, 中文, and a tab\t',
    "session_title": "Fix the flaky test",
    "tools": ["Bash"],
    "part_spans": [[0, 4, "thinking"]],
    "message_ids": ["m-1"],
    "title": None,
}


@pytest.fixture
def store(tmp_path):
    s = EdgeStore(tmp_path / "index")
    s.ensure(4)
    yield s
    s.close()


def raw(store: EdgeStore, key: str) -> dict:
    [record] = store.live_shard().retrieve([point_id(key)], with_payload=True, with_vector=False)
    return dict(record.payload)


def test_edge_holds_the_indexed_fields_and_one_packed_value(store):
    store.upsert([Point("s1:msg-1", None, SparseVec([3], [1.0]), PAYLOAD)])
    held = raw(store, "s1:msg-1")
    assert set(held) - {PACKED} <= own_fields(store.faceted)
    assert {"key", "session_id", "generation", "timestamp", "turn_index", "visible"} <= set(held)
    packed = json.loads(held[PACKED])
    assert packed["text"] == PAYLOAD["text"] and packed["tools"] == ["Bash"] and packed["project"] == "alpha"
    [got] = store.retrieve(["s1:msg-1"])
    assert got.payload == {**PAYLOAD, "key": "s1:msg-1"}
    assert type(got.payload["has_tools"]) is bool and type(got.payload["turn_index"]) is int


def test_reads_of_some_fields_give_those_fields(store):
    store.upsert([Point("s1:msg-1", None, SparseVec([3], [1.0]), PAYLOAD)])
    [only_own] = list(store.scroll(fields=["session_id", "timestamp"]))
    assert only_own.payload == {"session_id": "s1", "timestamp": PAYLOAD["timestamp"]}
    [mixed] = list(store.scroll(fields=["key", "text", "has_tools"]))
    assert mixed.payload == {"key": "s1:msg-1", "text": PAYLOAD["text"], "has_tools": True}
    [newest] = store.newest(None, limit=1, fields=["session_title"])
    assert newest.payload == {"session_title": PAYLOAD["session_title"], "timestamp": PAYLOAD["timestamp"]}
    [[hit]] = store.query([Query(sparse=SparseVec([3], [1.0]), limit=1, fields=("role", "key"))])
    assert hit.payload == {"role": "ai", "key": "s1:msg-1"} and hit.partial


def test_a_filter_on_a_packed_field_is_refused_by_name(store):
    store.upsert([Point("s1:msg-1", None, SparseVec([3], [1.0]), PAYLOAD)])
    with pytest.raises(ValueError, match="session_title"):
        store.count(Filter((Cond("session_title", "Fix the flaky test"),)))
    with pytest.raises(ValueError, match="tools"):
        store.query([Query(sparse=SparseVec([3], [1.0]), filter=Filter((Cond("tools", "Bash"),)), limit=1)])
    assert store.count(Filter((Cond("role", "ai"), Cond("turn_index", 2)))) == 1


def test_set_payload_wins_over_the_packed_value(store):
    store.upsert([Point("s1:msg-1", None, SparseVec([3], [1.0]), {**PAYLOAD, "starred": False})])
    store.set_payload({"starred": True, "session_title": "renamed"}, Filter((Cond("session_id", "s1"),)))
    [got] = store.retrieve(["s1:msg-1"])
    assert got.payload["starred"] is True and got.payload["session_title"] == "renamed"
    assert got.payload["text"] == PAYLOAD["text"]


def test_points_written_before_the_packing_read_and_filter_alike(store):
    """An index made by an older convo-tui holds whole payloads: they live beside packed ones."""
    old = to_stored({**PAYLOAD, "key": "s0:msg-0", "session_id": "s0"})
    if store.faceted:
        from convo_tui.core.store.edge_facets import FACETS, facets_of

        old[FACETS] = facets_of(old, store.facet_fields)
    store.write_main(qe.UpdateOperation.upsert_points([qe.Point(point_id("s0:msg-0"), {}, old)]))
    store.upsert([Point("s1:msg-1", None, SparseVec([3], [1.0]), PAYLOAD)])
    assert PACKED not in raw(store, "s0:msg-0")
    got = {s.payload["key"]: s.payload for s in store.scroll()}
    assert got["s0:msg-0"] == {**PAYLOAD, "key": "s0:msg-0", "session_id": "s0"}
    assert got["s1:msg-1"] == {**PAYLOAD, "key": "s1:msg-1"}
    assert store.count(Filter((Cond("project", "alpha"), Cond("has_tools", True)))) == 2
    assert {s.payload["text"] for s in store.scroll(fields=["text"])} == {PAYLOAD["text"]}


def test_pack_keeps_own_fields_and_unpack_restores():
    stored = to_stored({**PAYLOAD, "key": "k"})
    for faceted in (True, False):
        packed = pack(stored, faceted)
        assert unpack(dict(packed)) == stored
        assert unpack(dict(packed), ["text", "generation", "absent"]) == {"text": PAYLOAD["text"], "generation": 7}
    assert "project" in pack(stored, False) and "project" not in pack(stored, True)
    assert PACKED not in pack({"key": "k", "visible": 1}, True)


def test_a_damaged_packed_value_is_named_as_damage(store):
    store.write_main(
        qe.UpdateOperation.upsert_points([qe.Point(point_id("s0:msg-0"), {}, {"key": "s0:msg-0", PACKED: '{"text": "cut'})])
    )
    with pytest.raises(IndexUnavailable, match=r"is damaged: a point's packed payload is unreadable.*index --rebuild"):
        list(store.scroll())


def test_what_edge_refuses_in_a_field_is_refused_packed(store):
    with pytest.raises(ValueError):
        store.upsert([Point("s1:msg-1", None, SparseVec([3], [1.0]), {**PAYLOAD, "text": float("nan")})])
