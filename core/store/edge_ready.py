"""Whether a point of the embedded store has its dense vector, kept where
writing it costs nothing: in the dense shard.

Phase 1 writes each point's `dense_ready` with it (True when the vector cache
gave it a vector, False when phase 2 has to). Phase 2 used to set the flag in
the main shard as it wrote each vector, but Edge rewrites a point of an
on-disk segment into the appendable one on any change of its payload: phase 2
copied every point it embedded (payload and BM25 terms) back into the main
shard, rolled that shard every ROLL_POINTS of them and merged its segments
again, and the index run's last optimize merged what it moved beside the
model's memory (the 100k run's peak, 753-825 MB). So phase 2 no longer
touches the main shard: a point is embedded when the main shard says so, or
when the dense shard holds it (its vector, or a point without one for a text
with nothing to embed). A dense point's own `dense_ready` is a copy of the
main shard's flag (written with it, as every filter field is), so what the
main shard says False and the dense shard holds are the dense points that
say False:

    embedded(F) = main(F, True) + dense(F, False)
    waiting(F)  = main(F, False) - dense(F, False)

Filters name the flag as `Cond("dense_ready", value=...)` among the conditions
every point must meet; counts, scrolls and dense searches answer it this way.
A payload read back carries the flag as phase 1 wrote it (reading the dense
shard for every hit of every search would cost each search a read, and a
cold keyword search the dense shard's load): ask with a condition.

A point is embedded as soon as its vector is written (`update_vectors`);
`set_payload({"dense_ready": True})` adds what has nothing to embed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import qdrant_edge as qe
from convo_tui.core.store.base import Cond, Filter, Query
from convo_tui.core.store.edge_packing import selector, unpack
from convo_tui.core.store.edge_query import ID_PAGE, dense_filters, records
from convo_tui.core.store.edge_schema import FILTER_FIELDS, filter_fields, to_filter, to_stored

READY = "dense_ready"

# A filter of ours as the shards hold its fields (EdgeStore._filter: the layout's facets).
Shape = Callable[[Filter | None], Filter | None]


def asked(flt: Filter | None) -> tuple[bool | None, Filter | None]:
    """The value `flt` asks `dense_ready` to have (None: it asks nothing of it), and
    `flt` without that condition."""
    if flt is None or all(c.key != READY for c in (*flt.must, *flt.must_not)):
        return None, flt
    wanted = [c for c in flt.must if c.key == READY]
    if len(wanted) != 1 or wanted[0].value is None or any(c.key == READY for c in flt.must_not):
        raise ValueError("a filter on dense_ready names one value, among the conditions every point must meet")
    rest = tuple(c for c in flt.must if c.key != READY)
    return bool(wanted[0].value), Filter(must=rest, must_not=flt.must_not)


def refuse(flt: Filter | None, what: str) -> None:
    """`what` cannot be asked with a `dense_ready` condition (none needs it)."""
    if asked(flt)[0] is not None:
        raise ValueError(f"{what} cannot be asked by dense_ready (core/store/edge_ready.py)")


def flagged(flt: Filter | None, value: bool) -> Filter:
    return (flt or Filter()).and_(Cond(READY, value=value))


def for_search(q: Query) -> Query:
    """`q` as the shards answer it: a meaning query's `dense_ready=True` is what the
    dense shard holds (every vector there is an embedded point's; placeholders
    have none), so it is left out; a keyword query cannot ask it (the main
    shard's flag is not the answer)."""
    value, rest = asked(q.filter)
    if value is None:
        return q
    if value and q.dense is not None and (q.sparse is None or not q.sparse.indices):
        return replace(q, filter=rest)
    raise ValueError("only a meaning query can ask for dense_ready points (core/store/edge_ready.py)")


def count(main: qe.EdgeShard, dense: qe.EdgeShard | None, rest: Filter | None, value: bool, shape: Shape) -> int:
    """How many points matching `rest` are embedded (`value` True) or waiting."""
    on_main = main.count(qe.CountRequest(exact=True, filter=to_filter(shape(flagged(rest, value)))))
    held = 0
    if dense is not None:
        for part in dense_filters(main, shape(flagged(rest, False)), page=ID_PAGE):
            held += dense.count(qe.CountRequest(exact=True, filter=part))
    return on_main + held if value else on_main - held


def held_ids(dense: qe.EdgeShard | None, ids: list[Any]) -> set[str]:
    """Those of `ids` the dense shard holds."""
    if dense is None or not ids:
        return set()
    return {str(r.id) for r in dense.retrieve(ids, with_payload=False, with_vector=False)}


def scroll(
    main: qe.EdgeShard,
    dense: qe.EdgeShard | None,
    rest: Filter | None,
    value: bool,
    shape: Shape,
    *,
    with_payload: Any,
    batch: int,
) -> Iterator[Any]:
    """The records of the main shard's points matching `rest` that are
    embedded (`value` True) or waiting, a page at a time, by point id: what the
    dense shard gains meanwhile does not move the pages still to come."""
    if value:
        yield from records(main, shape(flagged(rest, True)), with_payload=with_payload, batch=batch)
    page: list[Any] = []
    for r in records(main, shape(flagged(rest, False)), with_payload=with_payload, batch=batch):
        page.append(r)
        if len(page) >= batch:
            yield from _kept(dense, page, value)
            page = []
    yield from _kept(dense, page, value)


def _kept(dense: qe.EdgeShard | None, page: list[Any], value: bool) -> Iterator[Any]:
    held = held_ids(dense, [r.id for r in page])
    return (r for r in page if (str(r.id) in held) == value)


def dense_copies(main: qe.EdgeShard, ids: list[Any], is_faceted: bool) -> list[tuple[Any, dict[str, Any]]]:
    """The (id, what its dense point carries of its payload: the filter fields and
    their facets) of those of these main points that exist."""
    found = main.retrieve(ids, with_payload=selector(FILTER_FIELDS, None, is_faceted), with_vector=False)
    return [(r.id, filter_fields(to_stored(unpack(r.payload or {})))) for r in found]


def placeholders(
    main: qe.EdgeShard, dense: qe.EdgeShard, flt: Filter, shape: Shape, is_faceted: bool
) -> Iterator[list[qe.Point]]:
    """For the waiting points matching `flt` that the dense shard does not hold, a
    page at a time: points without a vector, which say they are done."""
    ids = [r.id for r in scroll(main, dense, flt, False, shape, with_payload=False, batch=ID_PAGE)]
    for start in range(0, len(ids), ID_PAGE):
        page = ids[start : start + ID_PAGE]
        yield [qe.Point(pid, {}, copy) for pid, copy in dense_copies(main, page, is_faceted)]
