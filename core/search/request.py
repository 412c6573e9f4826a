"""What every search mode shares: the models it may use, the payload fields a
card reads, the filter of one level (turns or messages) and a hit's text and terms."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from convo_tui.core.search.query import ParsedQuery
from convo_tui.core.store.base import Cond, Filter, Query, Scored, Store

if TYPE_CHECKING:
    from convo_tui.core.embed.dense import DenseModel
    from convo_tui.core.embed.sparse import SparseEmbedder

TEXT_FIELDS = [
    "key",
    "session_id",
    "session_title",
    "project",
    "source",
    "path",
    "turn_index",
    "message_ids",
    "timestamp",
    "user_text",
    "ai_text",
    "tools",
    "role",
    "text",
    "part",
    "part_spans",
    "machine",
]


@dataclass
class Embedders:
    """What a search needs from the models; `dense` may be None (keyword/fuzzy)."""

    dense: DenseModel | None
    sparse: SparseEmbedder


def level_filter(parsed: ParsedQuery, level: str) -> Filter:
    return parsed.store_filter().and_(Cond("level", value=level))


def embedded(flt: Filter) -> Filter:
    """`flt` narrowed to the points that hold a dense vector, for a dense query.

    Most points never get one (thinking, tool calls, texts the turn's vector
    covers). Without the condition Edge weighed every point of the level
    against the filter: at a million messages (3.9M points, 445k vectors, 33
    segments) a dense query took 49 ms; with it 3.1 ms, the same candidates
    (BENCHMARKS.md, "Dense queries at a million messages"). Phase 2 sets
    `dense_ready` right after it writes a vector, and phase 1 with the vector
    it takes from the cache."""
    return flt.and_(Cond("dense_ready", value=True))


def with_vectors(store: Store, query_dense: Sequence[float], keys: Sequence[str]) -> list[Scored]:
    """The visible points with these keys, with their vectors (scroll returns none): one store query."""
    return store.query(
        [
            Query(
                dense=query_dense,
                filter=Filter(must=(Cond("key", any=tuple(keys)), Cond("visible", value=True))),
                limit=len(keys) * 2,
                with_dense=True,
                fields=("key", "lang"),
            )
        ]
    )[0]


def point_text(point: Scored) -> str:
    """The text a point was indexed with (turns: their two sides)."""
    p = point.payload
    return str(p.get("text") or f"{p.get('user_text', '')}\n{p.get('ai_text', '')}")


def point_terms(embedders: Embedders, point: Scored) -> frozenset[int]:
    """The token ids the point was indexed with: from the store when it sent them
    (`with_terms`), else its text tokenized again."""
    if point.terms is not None:
        return point.terms
    return frozenset(embedders.sparse.embed_document(point_text(point)).indices)
