"""The reads of the embedded store (core/store/edge.py): searches, payloads by id,
scrolls, the newest points and counts, on the shards an `EdgeStore` opened.
A mixin, so that edge.py keeps the store's lifecycle and writes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import qdrant_edge as qe
from convo_tui.core.store import edge_ready
from convo_tui.core.store.base import Cond, Filter, Query, Scored
from convo_tui.core.store.edge_levels import level_searches
from convo_tui.core.store.edge_packing import selector
from convo_tui.core.store.edge_query import newest, records, search
from convo_tui.core.store.edge_schema import WHOLE_PAYLOAD, edge_errors, from_stored, to_filter

# The condition every search carries (core/index/visible.py), and its opposite.
SHOWN = Cond("visible", value=True)
HIDDEN = Cond("visible", value=False)


def _unchecked(q: Query) -> Query:
    """`q` without the condition that its points be visible."""
    if q.filter is None or SHOWN not in q.filter.must:
        return q
    must = tuple(c for c in q.filter.must if c != SHOWN)
    return replace(q, filter=Filter(must=must, must_not=q.filter.must_not) if must or q.filter.must_not else None)


class EdgeReads:
    """What an `EdgeStore` answers from its open shards."""

    path: Path
    facet_fields: frozenset[str]  # the layout (edge_facets.py)
    _shard: qe.EdgeShard | None
    _shown_at: int | None = None  # the count of writes at which no point was hidden (`_none_hidden`)

    @property
    def faceted(self) -> bool:
        """Whether the shards keep some filter fields in `facets` (how payloads are packed and read)."""
        return bool(self.facet_fields)

    def _dense_shard(self) -> qe.EdgeShard | None:
        raise NotImplementedError  # EdgeStore: the dense shard, loaded on first use

    def _filter(self, flt: Filter | None) -> Filter | None:
        raise NotImplementedError  # EdgeStore: the filter as the shards hold its fields

    def writes(self) -> int:
        raise NotImplementedError  # EdgeStore: a count every write changes

    def query(self, queries: Sequence[Query]) -> list[list[Scored]]:
        """The searches; where no point is hidden, without asking Edge to check `visible`.

        Every point is written hidden (`visible` False) and shown when its session
        part is published, so between index runs every point is visible, and the
        condition each search carries matches them all; yet Edge checks it on every
        candidate: a common word's keyword search at a million messages took 31.5
        ms with it and 24.7 without (BENCHMARKS.md, "Twenty-second session"). It
        is left out while the store knows no hidden point: counted (0.1 ms) again
        after any write, and a search a write overlapped is run again with it."""
        if self._shard is None:
            return [[] for _ in queries]
        queries = [edge_ready.for_search(q) for q in queries]
        with edge_errors(self.path, "searching"):
            wants_dense = any(q.dense is not None or q.with_dense for q in queries)
            asked = queries
            queries = [q if q.filter is None else replace(q, filter=self._filter(q.filter)) for q in queries]
            dense = self._dense_shard() if wants_dense else None
            before = self.writes()
            if self._none_hidden(before) and any(SHOWN in q.filter.must for q in queries if q.filter is not None):
                # Left with only their level's condition, a keyword query per level becomes one (edge_levels.py).
                levels = level_searches([_unchecked(q) for q in asked])
                unchecked = [_unchecked(q) for q in queries]
                found = search(self._shard, dense, unchecked, is_faceted=self.faceted, levels=levels)
                if self.writes() == before:
                    return found
            return search(self._shard, dense, queries, is_faceted=self.faceted)

    def _none_hidden(self, writes: int) -> bool:
        """No point of the main shard is hidden, as of this count of writes."""
        if self._shown_at != writes:
            self._shown_at = writes if self.count(Filter(must=(HIDDEN,))) == 0 else None
        return self._shown_at == writes

    def payloads(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        if self._shard is None or not ids:
            return {}
        with edge_errors(self.path, "reading"):
            return {
                str(r.id): from_stored(r.payload)
                for r in self._shard.retrieve(list(ids), with_payload=WHOLE_PAYLOAD, with_vector=False)
            }

    def scroll(self, flt: Filter | None = None, *, fields: Sequence[str] | None = None, batch: int = 512) -> Iterator[Scored]:
        """A `dense_ready` condition is answered by both shards (edge_ready.py)."""
        if self._shard is None:
            return
        with_payload = selector(fields, WHOLE_PAYLOAD, self.faceted)
        value, rest = edge_ready.asked(flt)
        with edge_errors(self.path, "reading"):
            if value is None:
                found = records(self._shard, self._filter(flt), with_payload=with_payload, batch=batch)
            else:
                found = edge_ready.scroll(
                    self._shard, self._dense_shard(), rest, value, self._filter, with_payload=with_payload, batch=batch
                )
            for r in found:
                yield Scored(id=str(r.id), score=0.0, payload=from_stored(r.payload, fields))

    def newest(self, flt: Filter | None, *, limit: int, fields: Sequence[str] | None = None) -> list[Scored]:
        """Ordered by the `timestamp` payload index: reads `limit` points, not every match."""
        if self._shard is None or limit <= 0:
            return []
        edge_ready.refuse(flt, "the newest points")
        with edge_errors(self.path, "reading"):
            return newest(self._shard, self._filter(flt), limit=limit, fields=fields, is_faceted=self.faceted)

    def count(self, flt: Filter | None = None) -> int:
        if self._shard is None:
            return 0
        value, rest = edge_ready.asked(flt)
        with edge_errors(self.path, "reading"):
            if value is not None:
                return edge_ready.count(self._shard, self._dense_shard(), rest, value, self._filter)
            return self._shard.count(qe.CountRequest(exact=True, filter=to_filter(self._filter(flt))))
