"""Reads of the embedded store's two shards (edge.py). Searches: BM25 runs in
the main shard, meaning in the dense one, and a hybrid query fuses the two
lists here with the same reciprocal-rank formula Qdrant uses (so scores agree
with the server backend). Payloads, and the stored BM25 terms, are read from
the main shard for the hits only; the dense shard holds just the filter
fields. Scrolls: the main shard's points page by page, or newest first."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import qdrant_edge as qe
from convo_tui.core.store.base import DENSE, RRF_K, SPARSE, Filter, Query, Scored
from convo_tui.core.store.edge_schema import (
    DENSE_PARAMS,
    FILTER_FIELDS,
    filter_keys,
    from_stored,
    to_filter,
    to_scored,
    to_sparse,
)

_ID_PAGE = 4096


def _sparse_of(q: Query) -> Any:
    return q.sparse if q.sparse is not None and q.sparse.indices else None


def _request(
    q: Query, vector: Any, using: str, limit: int, params: Any, *, payload: bool, vectors: Any, flt: Any = None
) -> qe.QueryRequest:
    return qe.QueryRequest(
        limit=limit,
        query=qe.Query.Nearest(vector, using=using),
        filter=flt or to_filter(q.filter),
        params=params,
        with_payload=payload,
        with_vector=vectors,
    )


def records(shard: qe.EdgeShard, flt: Filter | None, *, with_payload: Any, batch: int) -> Iterator[Any]:
    """Every point of `shard` matching `flt`, read `batch` at a time."""
    offset = None
    while True:
        page, offset = shard.scroll(
            qe.ScrollRequest(offset=offset, limit=batch, filter=to_filter(flt), with_payload=with_payload)
        )
        yield from page
        if offset is None:
            return


def newest(shard: qe.EdgeShard, flt: Filter | None, *, limit: int, fields: Sequence[str] | None) -> list[Scored]:
    """The `limit` matching points with the latest `timestamp`, through its payload
    index (a scroll ordered by it); points without one come last."""
    with_payload: Any = qe.PayloadSelector.Include([*fields, "timestamp"]) if fields is not None else True
    page, _ = shard.scroll(
        qe.ScrollRequest(
            limit=limit,
            filter=to_filter(flt),
            with_payload=with_payload,
            order_by=qe.OrderBy("timestamp", direction=qe.Direction.Desc),
        )
    )
    out = [Scored(id=str(r.id), score=0.0, payload=from_stored(r.payload)) for r in page]
    if len(out) < limit:  # order_by skips points without a timestamp
        for r in records(shard, flt, with_payload=with_payload, batch=512):
            payload = from_stored(r.payload)
            if payload.get("timestamp") is None:
                out.append(Scored(id=str(r.id), score=0.0, payload=payload))
                if len(out) >= limit:
                    break
    return out


def dense_filters(main: qe.EdgeShard, flt: Filter | None, *, page: int | None = None) -> list[qe.Filter | None]:
    """`flt` as the dense shard can evaluate it. Searches filter on indexed fields,
    which dense points carry; a filter on any other field is first turned into
    the ids of the main shard's matches, `page` ids a filter (all in one without)."""
    if filter_keys(flt) <= FILTER_FIELDS:
        return [to_filter(flt)]
    ids = [r.id for r in records(main, flt, with_payload=False, batch=_ID_PAGE)]
    size = page or len(ids) or 1
    return [qe.Filter(must=[qe.HasIdCondition(set(ids[i : i + size]))]) for i in range(0, max(len(ids), 1), size)]


def fuse(lists: Sequence[Sequence[Any]], limit: int) -> list[tuple[Any, float]]:
    """Reciprocal-rank fusion: a point ranked r (0-based) in a list gets
    1 / (RRF_K + r) from it; ties keep the order of first appearance."""
    scores: dict[Any, float] = {}
    for ranked in lists:
        for rank, pid in enumerate(ranked):
            scores[pid] = scores.get(pid, 0.0) + 1.0 / (RRF_K + rank)
    order = sorted(scores.items(), key=lambda item: -item[1])
    return order[:limit]


def search(main: qe.EdgeShard, dense: qe.EdgeShard | None, queries: Sequence[Query]) -> list[list[Scored]]:
    """Run `queries` (each keyword, meaning or both) in batched calls: one per
    shard, then one read of the hits' payloads (and one of their dense vectors
    when a query asks for them)."""
    results: list[list[Scored]] = [[] for _ in queries]
    main_requests: list[qe.QueryRequest] = []
    main_slots: list[tuple[int, bool]] = []  # (query, whole answer) for each main request
    dense_requests: list[qe.QueryRequest] = []
    dense_slots: list[int] = []
    for i, q in enumerate(queries):
        sparse = _sparse_of(q)
        wants_dense = q.dense is not None and dense is not None
        if sparse is not None and not wants_dense:
            # Keyword only: answered whole by the main shard, unless it wants the dense vectors too.
            whole = not q.with_dense
            vectors: Any = [SPARSE] if q.with_terms and whole else False
            main_requests.append(_request(q, to_sparse(sparse), SPARSE, q.limit, None, payload=whole, vectors=vectors))
            main_slots.append((i, whole))
            continue
        if not wants_dense:
            continue
        pre = (q.prefetch_limit or q.limit * 2) if sparse is not None else q.limit
        vector = [float(x) for x in q.dense or ()]
        [flt] = dense_filters(main, q.filter)
        dense_requests.append(_request(q, vector, DENSE, pre, DENSE_PARAMS, payload=False, vectors=False, flt=flt))
        dense_slots.append(i)
        if sparse is not None:
            main_requests.append(_request(q, to_sparse(sparse), SPARSE, pre, None, payload=False, vectors=False))
            main_slots.append((i, False))
    ranked: dict[int, list[list[Any]]] = {}
    scores: dict[int, dict[Any, float]] = {}
    if main_requests:
        for (i, whole), points in zip(main_slots, main.query_batch(qe.QueryBatchRequest(main_requests)), strict=True):
            if whole:
                results[i] = [to_scored(p) for p in points]
            else:
                ranked.setdefault(i, []).append([str(p.id) for p in points])
                if queries[i].dense is None or dense is None:
                    scores[i] = {str(p.id): float(p.score) for p in points}
    if dense_requests and dense is not None:
        for i, points in zip(dense_slots, dense.query_batch(qe.QueryBatchRequest(dense_requests)), strict=True):
            ranked.setdefault(i, []).append([str(p.id) for p in points])
            if _sparse_of(queries[i]) is None:
                scores[i] = {str(p.id): float(p.score) for p in points}
    if not ranked:
        return results
    chosen: dict[int, list[tuple[Any, float]]] = {}
    for i, lists in ranked.items():
        if i in scores:  # one list (meaning, or keyword with the vectors): its own scores
            chosen[i] = list(scores[i].items())[: queries[i].limit]
        else:
            chosen[i] = fuse(lists, queries[i].limit)
    _attach(main, dense, queries, chosen, results)
    return results


def _attach(
    main: qe.EdgeShard,
    dense: qe.EdgeShard | None,
    queries: Sequence[Query],
    chosen: dict[int, list[tuple[Any, float]]],
    results: list[list[Scored]],
) -> None:
    """The hits' payloads (and terms, and dense vectors) read by id; a hit the
    main shard no longer holds (deleted between the two reads) is left out."""
    ids = list(dict.fromkeys(pid for hits in chosen.values() for pid, _ in hits))
    with_terms = any(queries[i].with_terms for i in chosen)
    records: dict[str, Any] = {
        str(r.id): r for r in main.retrieve(ids, with_payload=True, with_vector=[SPARSE] if with_terms else False)
    }
    vectors: dict[Any, list[float]] = {}
    dense_ids = list(dict.fromkeys(pid for i, hits in chosen.items() if queries[i].with_dense for pid, _ in hits))
    if dense_ids and dense is not None:
        found: list[Any] = dense.retrieve(dense_ids, with_payload=False, with_vector=[DENSE])
        for r in found:
            if isinstance(r.vector, dict) and DENSE in r.vector:
                vectors[str(r.id)] = list(r.vector[DENSE])
    for i, hits in chosen.items():
        q = queries[i]
        out = []
        for pid, score in hits:
            record = records.get(pid)
            if record is None:
                continue
            terms = None
            if q.with_terms and isinstance(record.vector, dict) and SPARSE in record.vector:
                terms = frozenset(record.vector[SPARSE].indices)
            out.append(
                Scored(
                    id=pid,
                    score=score,
                    payload=from_stored(record.payload),
                    dense=vectors.get(pid) if q.with_dense else None,
                    terms=terms if q.with_terms else None,
                )
            )
        results[i] = out
