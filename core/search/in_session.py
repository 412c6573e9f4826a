"""Every hit of a query within one session (the reader's n/N)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from convo_tui.core.hits import Hit
from convo_tui.core.search.pipeline import search
from convo_tui.core.search.query import parse_query, session_filter
from convo_tui.core.search.request import Embedders
from convo_tui.core.store.base import Store

# In one session, a semantic-only hit counts for the reader's n/N above this
# relevance (the model-calibrated score: cosine 0.45 for MiniLM, 0.86 for e5).
IN_SESSION_RELEVANCE = 0.4


def hits_in_session(
    store: Store,
    embedders: Embedders,
    query: str,
    session_id: str,
    *,
    mode: str = "hybrid",
    limit: int = 200,
    resolve_session: Callable[[str], str] | None = None,
    resolve_tag: Callable[[str], tuple[str, ...]] | None = None,
) -> list[Hit]:
    """Every hit of a query within one session, in reading order (for the reader's n/N)."""
    parsed = parse_query(query)
    if not parsed.text:
        return []
    scoped = f"{query} {session_filter(session_id)}" if parsed.session is None else query
    find = partial(search, store, embedders, scoped, limit=limit, resolve_session=resolve_session, resolve_tag=resolve_tag)
    if mode != "hybrid" or embedders.dense is None:
        hits = find(mode="keyword" if mode == "hybrid" else mode)
    else:
        # Dense retrieval ranks every turn; within a session only the close ones count.
        hits = find(mode="keyword")
        seen = {(h.turn_index, tuple(h.message_ids)) for h in hits}
        for hit in find(mode="semantic"):
            if hit.score >= IN_SESSION_RELEVANCE and (hit.turn_index, tuple(hit.message_ids)) not in seen:
                hits.append(hit)
    return sorted(hits, key=lambda h: (h.turn_index, h.kind != "turn"))
