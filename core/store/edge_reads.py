"""The reads of the embedded store (core/store/edge.py): searches, payloads by id,
scrolls, the newest points and counts, on the shards an `EdgeStore` opened.
A mixin, so that edge.py keeps the store's lifecycle and writes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import qdrant_edge as qe
from convo_tui.core.store.base import Filter, Query, Scored
from convo_tui.core.store.edge_packing import selector
from convo_tui.core.store.edge_query import newest, records, search
from convo_tui.core.store.edge_schema import WHOLE_PAYLOAD, edge_errors, from_stored, to_filter


class EdgeReads:
    """What an `EdgeStore` answers from its open shards."""

    path: Path
    faceted: bool
    _shard: qe.EdgeShard | None

    def _dense_shard(self) -> qe.EdgeShard | None:
        raise NotImplementedError  # EdgeStore: the dense shard, loaded on first use

    def _filter(self, flt: Filter | None) -> Filter | None:
        raise NotImplementedError  # EdgeStore: the filter as the shards hold its fields

    def query(self, queries: Sequence[Query]) -> list[list[Scored]]:
        if self._shard is None:
            return [[] for _ in queries]
        with edge_errors(self.path, "searching"):
            wants_dense = any(q.dense is not None or q.with_dense for q in queries)
            queries = [q if q.filter is None else replace(q, filter=self._filter(q.filter)) for q in queries]
            return search(self._shard, self._dense_shard() if wants_dense else None, queries, is_faceted=self.faceted)

    def payloads(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        if self._shard is None or not ids:
            return {}
        with edge_errors(self.path, "reading"):
            return {
                str(r.id): from_stored(r.payload)
                for r in self._shard.retrieve(list(ids), with_payload=WHOLE_PAYLOAD, with_vector=False)
            }

    def scroll(self, flt: Filter | None = None, *, fields: Sequence[str] | None = None, batch: int = 512) -> Iterator[Scored]:
        if self._shard is None:
            return
        with_payload = selector(fields, WHOLE_PAYLOAD, self.faceted)
        with edge_errors(self.path, "reading"):
            for r in records(self._shard, self._filter(flt), with_payload=with_payload, batch=batch):
                yield Scored(id=str(r.id), score=0.0, payload=from_stored(r.payload, fields))

    def newest(self, flt: Filter | None, *, limit: int, fields: Sequence[str] | None = None) -> list[Scored]:
        """Ordered by the `timestamp` payload index: reads `limit` points, not every match."""
        if self._shard is None or limit <= 0:
            return []
        with edge_errors(self.path, "reading"):
            return newest(self._shard, self._filter(flt), limit=limit, fields=fields, is_faceted=self.faceted)

    def count(self, flt: Filter | None = None) -> int:
        if self._shard is None:
            return 0
        with edge_errors(self.path, "reading"):
            return self._shard.count(qe.CountRequest(exact=True, filter=to_filter(self._filter(flt))))
