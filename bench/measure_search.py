"""Search latency of the full hybrid two-level search, and what each stage costs.

Latency calls `core.search.search` exactly as the CLI and the app do (query
parsing, dense and BM25 query embedding, both levels, merge). The stage split
calls the same core functions one at a time, so the parts add up to about the
whole (the two levels run as two round trips here instead of one batch).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from convo_tui.core.index.points import LEVEL_MESSAGE, LEVEL_TURN
from convo_tui.core.search.merge import merge
from convo_tui.core.search.pipeline import search
from convo_tui.core.search.query import parse_query
from convo_tui.core.search.request import Embedders, level_filter
from convo_tui.core.store.base import Query, Store

from bench.stats import percentile

LIMIT = 10


def latencies(store: Store, embedders: Embedders, queries: Sequence[str], rounds: int, warmup: int = 3) -> list[float]:
    """Seconds per search, `rounds` passes over the queries (after a short warm-up)."""
    for query in list(queries)[:warmup]:
        search(store, embedders, query, limit=LIMIT)
    out: list[float] = []
    for _ in range(rounds):
        for query in queries:
            started = time.perf_counter()
            search(store, embedders, query, limit=LIMIT)
            out.append(time.perf_counter() - started)
    return out


def stage_costs(store: Store, embedders: Embedders, queries: Sequence[str], rounds: int) -> dict[str, list[float]]:
    """Seconds per stage per query: embedding, turn level, message level, merge."""
    stages: dict[str, list[float]] = {"embedding": [], "turn level": [], "message level": [], "merge": []}
    fetch = LIMIT * 2
    for _ in range(rounds):
        for text in queries:
            t0 = time.perf_counter()
            parsed = parse_query(text)
            dense = embedders.dense.embed_query(parsed.text) if embedders.dense is not None else None
            sparse = embedders.sparse.embed_query(parsed.text)
            t1 = time.perf_counter()
            turns = store.query(
                [
                    Query(
                        dense=dense,
                        sparse=sparse,
                        filter=level_filter(parsed, LEVEL_TURN),
                        limit=fetch,
                        prefetch_limit=fetch * 2,
                        with_dense=True,
                    )
                ]
            )[0]
            t2 = time.perf_counter()
            messages = store.query(
                [
                    Query(
                        dense=dense,
                        sparse=sparse,
                        filter=level_filter(parsed, LEVEL_MESSAGE),
                        limit=fetch,
                        prefetch_limit=fetch * 2,
                        with_dense=True,
                    )
                ]
            )[0]
            t3 = time.perf_counter()
            merge(turns, messages, dense, LIMIT)
            t4 = time.perf_counter()
            for name, seconds in zip(stages, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=False):
                stages[name].append(seconds)
    return stages


def relevance(store: Store, embedders: Embedders, queries: Sequence[tuple[str, str]], topic_of: dict[str, str]) -> float:
    """Share of queries whose top hit is a session about the query's topic (a sanity check)."""
    good = 0
    for text, topic in queries:
        hits = search(store, embedders, text, limit=LIMIT)
        if hits and topic_of.get(hits[0].session_id) == topic:
            good += 1
    return good / max(1, len(queries))


def p(values: Sequence[float], q: float) -> float:
    return percentile([v * 1000 for v in values], q)
