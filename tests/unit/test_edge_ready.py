"""The embedded store keeps whether a point is embedded in its dense shard
(core/store/edge_ready.py): phase 2 writes nothing to the main shard, whose
on-disk segments Edge would otherwise rewrite point by point."""

from __future__ import annotations

import pytest
from convo_tui.core.store.base import Cond, Filter, Point, Query, SparseVec, point_id
from convo_tui.core.store.edge import EdgeStore

DIM = 4
E0 = [1.0, 0.0, 0.0, 0.0]
READY = Filter(must=(Cond("visible", value=True), Cond("dense_ready", value=True)))
WAITING = Filter(must=(Cond("visible", value=True), Cond("dense_ready", value=False)))


def published(i: int, flag: bool = False) -> Point:
    payload = {"session_id": f"s{i % 7}", "level": "message", "visible": True, "dense_ready": flag, "text": f"t{i}"}
    return Point(f"p{i}", E0 if flag else None, SparseVec([1, 2 + i % 5], [1.0, 1.0]), payload)


@pytest.fixture
def store(tmp_path):
    s = EdgeStore(tmp_path / "index")
    s.ensure(DIM)
    yield s
    s.close()


def main_state(store: EdgeStore) -> tuple[int, int, int]:
    info = store.live_shard().info()
    return info.points_count, info.indexed_vectors_count, info.segments_count


def test_phase_two_leaves_the_main_shard_as_phase_one_wrote_it(store):
    store.upsert([published(i) for i in range(600)])
    store.optimize()
    before = main_state(store)
    store.update_vectors([(point_id(f"p{i}"), E0) for i in range(0, 600, 2)])
    store.set_payload({"dense_ready": True}, Filter(must=(Cond("key", any=tuple(f"p{i}" for i in range(600))),)))
    # A payload change would have moved each point into the appendable segment (counted twice until a merge).
    assert main_state(store) == before
    assert (store.count(READY), store.count(WAITING)) == (600, 0)


def test_a_point_is_embedded_once_its_vector_is_written(store):
    """A crash between the vector and the mark leaves nothing to embed again."""
    store.upsert([published(i) for i in range(5)])
    store.update_vectors([(point_id("p3"), E0)])
    assert store.count(READY) == 1 and [p.payload["key"] for p in store.scroll(READY)] == ["p3"]
    assert sorted(p.payload["key"] for p in store.scroll(WAITING)) == ["p0", "p1", "p2", "p4"]


def test_counts_add_phase_one_and_phase_two_by_any_filter(store):
    store.upsert([published(i, flag=i < 10) for i in range(40)])
    store.update_vectors([(point_id(f"p{i}"), E0) for i in range(10, 25)])
    one_session = Filter(must=(Cond("session_id", value="s3"), Cond("dense_ready", value=True)))
    expected = sum(1 for i in range(25) if i % 7 == 3)
    assert store.count(one_session) == expected
    others = Filter(must=(Cond("dense_ready", value=False),), must_not=(Cond("session_id", any=("s3", "s4")),))
    assert store.count(others) == sum(1 for i in range(25, 40) if i % 7 not in (3, 4))


def test_the_flag_is_asked_only_where_it_can_be_answered(store):
    store.upsert([published(i) for i in range(3)])
    with pytest.raises(ValueError, match="meaning query"):
        store.query([Query(sparse=SparseVec([1], [1.0]), filter=READY)])
    with pytest.raises(ValueError, match="set True"):
        store.set_payload({"dense_ready": False}, Filter())
    with pytest.raises(ValueError, match="dense_ready"):
        store.delete(WAITING)
    with pytest.raises(ValueError, match="one value"):
        store.count(Filter(must_not=(Cond("dense_ready", value=True),)))


def test_a_payload_read_back_keeps_the_flag_phase_one_wrote(store):
    store.upsert([published(0)])
    store.update_vectors([(point_id("p0"), E0)])
    assert store.payloads([point_id("p0")])[point_id("p0")]["dense_ready"] is False
    assert store.count(READY) == 1
