"""The BM25 score of the points only a dense search reached (hybrid search)."""

from __future__ import annotations

from collections.abc import Sequence

from convo_tui.core.search.query import ParsedQuery
from convo_tui.core.search.request import level_filter
from convo_tui.core.store.base import Cond, Query, Scored, SparseVec, Store

# The meaning hits of each dense search (best first) whose BM25 score is looked up
# when the BM25 search did not reach them (`worded_meaning_hits`): all 60 cost a
# hybrid search at a million messages 11 ms (420 keys a search), the first 20 about 4 (240).
WORDED_DEPTH = 20


def worded_meaning_hits(
    store: Store,
    parsed: ParsedQuery,
    sparse: SparseVec,
    levels: Sequence[str],
    shape: Sequence[tuple[int, int]],
    results: Sequence[Sequence[Scored]],
    fields: Sequence[str] | None,
    depth: int,
) -> dict[str, list[Scored]]:
    """Per level, the BM25 hits among the points only the dense searches found:
    one search over just those points. Without it their keyword part was 0, so a
    card's relevance depended on how deep the BM25 search went, that is on the
    page asked for (`--limit 100` ranked cards first that `--limit 10` left out).

    Only the first WORDED_DEPTH of each dense search are asked about, whatever the
    page (so a card's score stays the page's), and none when the BM25 search
    returned fewer than it was asked for: then it found every text holding a word
    of the query, and the others truly hold none."""
    queries: list[Query] = []
    wanted: list[tuple[str, set[str]]] = []
    at = 0
    for level, (n_dense, n_sparse) in zip(levels, shape, strict=True):
        parts = results[at : at + n_dense]
        by_sparse = results[at + n_dense] if n_sparse else []
        at += n_dense + n_sparse
        if len(by_sparse) < depth:
            continue
        worded = {p.id for p in by_sparse}
        alone = {p.id: p.payload.get("key") for part in parts for p in part[:WORDED_DEPTH] if p.id not in worded}
        keys = tuple(sorted({key for key in alone.values() if key}))
        if keys:
            # Keys are matched through their hashes (edge_facets.py): room for a collision's extra point.
            flt = level_filter(parsed, level).and_(Cond("key", any=keys))
            queries.append(Query(sparse=sparse, filter=flt, limit=2 * len(keys) + 8, with_terms=True, fields=fields))
            wanted.append((level, set(alone)))
    found = store.query(queries) if queries else []
    return {level: [p for p in hits if p.id in ids] for (level, ids), hits in zip(wanted, found, strict=True)}
