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
from convo_tui.core.store.edge_levels import LevelSearch, level_fields, split
from convo_tui.core.store.edge_packing import selector
from convo_tui.core.store.edge_schema import (
    DENSE_PARAMS,
    FILTER_FIELDS,
    WHOLE_PAYLOAD,
    filter_keys,
    from_stored,
    to_filter,
    to_scored,
    to_sparse,
)

# Ids per filter when a filter the dense shard cannot evaluate is turned into ids.
ID_PAGE = 4096


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


def newest(
    shard: qe.EdgeShard, flt: Filter | None, *, limit: int, fields: Sequence[str] | None, is_faceted: bool
) -> list[Scored]:
    """The `limit` matching points with the latest `timestamp`, through its payload
    index (a scroll ordered by it); points without one come last."""
    wanted = [*fields, "timestamp"] if fields is not None else None
    with_payload = selector(wanted, WHOLE_PAYLOAD, is_faceted)
    page, _ = shard.scroll(
        qe.ScrollRequest(
            limit=limit,
            filter=to_filter(flt),
            with_payload=with_payload,
            order_by=qe.OrderBy("timestamp", direction=qe.Direction.Desc),
        )
    )
    out = [Scored(id=str(r.id), score=0.0, payload=from_stored(r.payload, wanted)) for r in page]
    if len(out) < limit:  # order_by skips points without a timestamp
        for r in records(shard, flt, with_payload=with_payload, batch=512):
            payload = from_stored(r.payload, wanted)
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
    ids = [r.id for r in records(main, flt, with_payload=False, batch=ID_PAGE)]
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


def search(
    main: qe.EdgeShard,
    dense: qe.EdgeShard | None,
    queries: Sequence[Query],
    *,
    is_faceted: bool,
    levels: Sequence[LevelSearch] = (),
) -> list[list[Scored]]:
    """Run `queries` (each keyword, meaning or both) in batched calls: one per
    shard, then the reads by id the answers still lack. `levels`: keyword
    queries of several levels asked as one (edge_levels.py).

    A keyword query's hits come with their payload and terms from the query
    itself, and a meaning query's with their vectors: Edge finds a point by its
    id in every segment, 42 us a point at a million messages (34 segments),
    while a query hands over what it found for 1-2 us (BENCHMARKS.md, "Eleventh
    session"). What is read by id: the payloads of meaning hits no keyword query
    of the batch returned, and the vectors of keyword hits that want them."""
    results: list[list[Scored]] = [[] for _ in queries]
    main_requests: list[qe.QueryRequest] = []
    main_slots: list[tuple[int, bool]] = []  # (query, whole answer) for each main request
    dense_requests: list[qe.QueryRequest] = []
    dense_slots: list[int] = []
    merged = {i for group in levels for i, _ in group.members}
    for i, q in enumerate(queries):
        sparse = _sparse_of(q)
        wants_dense = q.dense is not None and dense is not None
        if sparse is not None and not wants_dense:
            if i not in merged:
                main_requests.append(_keyword_request(q, is_faceted))
                main_slots.append((i, True))
            continue
        if not wants_dense:
            continue
        pre = (q.prefetch_limit or q.limit * 2) if sparse is not None else q.limit
        vector = [float(x) for x in q.dense or ()]
        [flt] = dense_filters(main, q.filter)
        own = [DENSE] if q.with_dense and sparse is None else False
        light: Any = qe.PayloadSelector.Include(list(q.fields or ())) if _dense_answers(q) else False
        dense_requests.append(_request(q, vector, DENSE, pre, DENSE_PARAMS, payload=light, vectors=own, flt=flt))
        dense_slots.append(i)
        if sparse is not None:
            main_requests.append(_request(q, to_sparse(sparse), SPARSE, pre, None, payload=False, vectors=False))
            main_slots.append((i, False))
    ranked: dict[int, list[list[Any]]] = {}
    scores: dict[int, dict[Any, float]] = {}
    found: dict[str, Scored] = {}  # what the queries returned whole: payload (and terms) by id
    vectors_of: dict[str, list[float]] = {}  # dense vectors the meaning queries returned
    partial: dict[int, dict[str, dict[str, Any]]] = {}  # per meaning query: the fields it asked for, from the dense shard
    if main_requests or levels:
        asked = [*main_requests, *(_level_request(group, is_faceted) for group in levels)]
        answers = main.query_batch(qe.QueryBatchRequest(asked))
        whole_answers: list[tuple[int, Sequence[Any]]] = []
        for (i, whole), points in zip(main_slots, answers[: len(main_requests)], strict=True):
            if whole:
                whole_answers.append((i, points))
            else:
                ranked.setdefault(i, []).append([str(p.id) for p in points])
        short: list[int] = []
        for group, listed in zip(levels, answers[len(main_requests) :], strict=True):
            settled, unsettled = split(group, listed, is_faceted)
            whole_answers += settled.items()
            short += unsettled
        if short:  # levels the merged answer does not settle: asked with their own condition
            again = main.query_batch(qe.QueryBatchRequest([_keyword_request(queries[i], is_faceted) for i in short]))
            whole_answers += zip(short, again, strict=True)
        for i, answer in whole_answers:
            results[i] = [to_scored(p, fields=queries[i].fields) for p in answer]
            found.update((hit.id, hit) for hit in results[i] if not hit.partial)
    if dense_requests and dense is not None:
        for i, points in zip(dense_slots, dense.query_batch(qe.QueryBatchRequest(dense_requests)), strict=True):
            ids = [str(p.id) for p in points]
            ranked.setdefault(i, []).append(ids)
            if _sparse_of(queries[i]) is None:
                scores[i] = {pid: float(p.score) for pid, p in zip(ids, points, strict=True)}
                if _dense_answers(queries[i]):
                    partial[i] = {pid: from_stored(p.payload or {}) for pid, p in zip(ids, points, strict=True)}
                for pid, p in zip(ids, points, strict=True):
                    returned: Any = p.vector
                    if isinstance(returned, dict) and DENSE in returned:
                        vectors_of[pid] = list(returned[DENSE])
    chosen: dict[int, list[tuple[Any, float]]] = {}
    for i, lists in ranked.items():
        if i in scores:  # a meaning query: its own scores
            chosen[i] = list(scores[i].items())[: queries[i].limit]
        else:
            chosen[i] = fuse(lists, queries[i].limit)
    _attach(main, dense, queries, chosen, results, found, vectors_of, partial)
    return results


def _keyword_request(q: Query, is_faceted: bool) -> qe.QueryRequest:
    """A keyword-only query, answered whole by the main shard (its dense vectors, if wanted, read after)."""
    vectors: Any = [SPARSE] if q.with_terms else False
    payload = selector(q.fields, WHOLE_PAYLOAD, is_faceted)
    return _request(q, to_sparse(_sparse_of(q)), SPARSE, q.limit, None, payload=payload, vectors=vectors)


def _level_request(group: LevelSearch, is_faceted: bool) -> qe.QueryRequest:
    """The one query of a `LevelSearch`, its hits carrying what tells their level."""
    q = group.query
    vectors: Any = [SPARSE] if q.with_terms else False
    whole = True if is_faceted else WHOLE_PAYLOAD  # `facets` too
    payload = selector(level_fields(q.fields, is_faceted), whole, is_faceted)
    return _request(q, to_sparse(_sparse_of(q)), SPARSE, q.limit, None, payload=payload, vectors=vectors)


def _dense_answers(q: Query) -> bool:
    """Whether the dense shard's copy of the filter fields is all this meaning query wants of a payload."""
    return q.fields is not None and q.sparse is None and set(q.fields) <= FILTER_FIELDS


def _attach(
    main: qe.EdgeShard,
    dense: qe.EdgeShard | None,
    queries: Sequence[Query],
    chosen: dict[int, list[tuple[Any, float]]],
    results: list[list[Scored]],
    found: dict[str, Scored],
    vectors_of: dict[str, list[float]],
    partial: dict[int, dict[str, dict[str, Any]]],
) -> None:
    """The ranked hits' payloads (and terms) and the dense vectors of hits that
    want them, read by id where the queries did not return them; a hit the main
    shard no longer holds (deleted between the two reads) is left out. A meaning
    query that asked only for indexed fields has them from the dense shard."""
    with_terms = any(queries[i].with_terms for i in chosen)

    def whole(pid: str, q: Query) -> Scored | None:
        known = found.get(pid)
        return known if known is not None and (known.terms is not None or not q.with_terms) else None

    def read_here(pid: str, i: int) -> bool:
        return whole(pid, queries[i]) is None and pid not in partial.get(i, {})

    missing = list(dict.fromkeys(pid for i, hits in chosen.items() for pid, _ in hits if read_here(pid, i)))
    records: dict[str, Any] = {}
    if missing:
        with_vector = [SPARSE] if with_terms else False
        records = {str(r.id): r for r in main.retrieve(missing, with_payload=WHOLE_PAYLOAD, with_vector=with_vector)}
    wanting = [
        *(pid for i, hits in chosen.items() if queries[i].with_dense for pid, _ in hits),
        *(hit.id for i, answer in enumerate(results) if i not in chosen and queries[i].with_dense for hit in answer),
    ]
    unread = list(dict.fromkeys(pid for pid in wanting if pid not in vectors_of))
    if unread and dense is not None:
        read: list[Any] = dense.retrieve(unread, with_payload=False, with_vector=[DENSE])
        for r in read:
            if isinstance(r.vector, dict) and DENSE in r.vector:
                vectors_of[str(r.id)] = list(r.vector[DENSE])
    for i, hits in chosen.items():
        q = queries[i]
        out = []
        for pid, score in hits:
            known = whole(pid, q)
            answered = known is None and pid in partial.get(i, {})  # the asked fields, from the dense shard
            if known is not None:
                payload, terms = known.payload, known.terms
            elif answered:
                payload, terms = partial[i][pid], None
            else:
                record = records.get(pid)
                if record is None:
                    continue
                payload, terms = from_stored(record.payload), None
                if isinstance(record.vector, dict) and SPARSE in record.vector:
                    terms = frozenset(record.vector[SPARSE].indices)
            out.append(
                Scored(
                    id=pid,
                    score=score,
                    payload=dict(payload),
                    dense=vectors_of.get(pid) if q.with_dense else None,
                    terms=terms if q.with_terms else None,
                    partial=answered,
                )
            )
        results[i] = out
    for i, answer in enumerate(results):
        if i not in chosen and queries[i].with_dense:
            for hit in answer:
                hit.dense = vectors_of.get(hit.id)
