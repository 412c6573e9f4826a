"""The writes of the embedded store (core/store/edge.py): points, their dense
vectors, deletes and payload changes, each kept the same in both shards, and
the rolls they make due. A mixin, as edge_reads.py is for the reads, so that
edge.py keeps the store's lifecycle."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe
from convo_tui.core.heap import return_freed_memory
from convo_tui.core.store import edge_ready
from convo_tui.core.store.base import DENSE, Filter, Point
from convo_tui.core.store.edge_query import ID_PAGE, dense_filters
from convo_tui.core.store.edge_rolls import Rolls
from convo_tui.core.store.edge_schema import edge_errors, edge_points, filter_fields, to_filter, to_stored


class EdgeWrites:
    """What an `EdgeStore` writes to its open shards."""

    path: Path
    facet_fields: frozenset[str]  # the layout (edge_facets.py)
    _shard: qe.EdgeShard | None
    _rolls: Rolls

    def _writable(self) -> None:
        raise NotImplementedError  # EdgeStore: refuses a store opened read-only

    def _need(self) -> qe.EdgeShard:
        raise NotImplementedError  # EdgeStore: the main shard, or IndexUnavailable

    def _need_dense(self) -> qe.EdgeShard:
        raise NotImplementedError  # EdgeStore: the dense shard, or IndexUnavailable

    def _dense_shard(self) -> qe.EdgeShard | None:
        raise NotImplementedError  # EdgeStore: the dense shard, loaded on first use

    def _filter(self, flt: Filter | None) -> Filter | None:
        raise NotImplementedError  # EdgeStore: the filter as the shards hold its fields

    def _update(self, operation: qe.UpdateOperation, shard: qe.EdgeShard | None = None) -> None:
        raise NotImplementedError  # EdgeStore: one write, the disk's room checked first

    def optimize(self) -> None:
        raise NotImplementedError  # EdgeStore: rolls the appendable segments

    def release_pages(self) -> None:
        raise NotImplementedError  # EdgeStore: unmaps the index pages this process holds

    def upsert(self, points: Sequence[Point]) -> None:
        self._writable()
        if not points:
            return
        dense_shard = self._need_dense()
        out, dense, plain = edge_points(points, self.facet_fields)
        self._update(qe.UpdateOperation.upsert_points(out))
        if dense:
            self._update(qe.UpdateOperation.upsert_points(dense), dense_shard)
        if plain and self._holds_vectors():  # an upsert without a vector drops the one it had
            self._update(qe.UpdateOperation.delete_points(plain), dense_shard)
        self._rolled(len(out))

    def update_vectors(self, vectors: Sequence[tuple[str, Sequence[float]]]) -> None:
        self._writable()
        if not vectors:
            return
        main, dense_shard = self._need(), self._need_dense()
        by_id = {pid: dense for pid, dense in vectors}
        with edge_errors(self.path, "reading"):
            copies = edge_ready.dense_copies(main, list(by_id), bool(self.facet_fields))
        out = [qe.Point(pid, {DENSE: [float(x) for x in by_id[str(pid)]]}, copy) for pid, copy in copies]
        if out:
            self._update(qe.UpdateOperation.upsert_points(out), dense_shard)
        self._rolled(len(out))

    def _holds_vectors(self) -> bool:
        with edge_errors(self.path, "reading"):
            dense = self._dense_shard()
            return dense is not None and dense.count(qe.CountRequest(exact=False)) > 0

    def _dense_filters(self, flt: Filter) -> list[qe.Filter]:
        """`flt` as the dense shard can evaluate it, by pages of ids where it must (edge_query)."""
        with edge_errors(self.path, "reading"):
            return [f or qe.Filter() for f in dense_filters(self._need(), flt, page=ID_PAGE)]

    def _rolled(self, written: int) -> None:
        """After `written` points: roll the appendable segment and hand the heap's
        free pages back when they are due (edge_rolls.py)."""
        if self._rolls.wrote(written):
            self.optimize()
            self.release_pages()
        if self._rolls.trim_due():
            return_freed_memory()

    def delete(self, flt: Filter) -> None:
        self._writable()
        edge_ready.refuse(flt, "a delete")
        flt = self._filter(flt) or Filter()
        if self._shard is not None:
            if self._holds_vectors():  # before the main shard, which may name the points
                for dense_filter in self._dense_filters(flt):
                    self._update(qe.UpdateOperation.delete_points_by_filter(dense_filter), self._need_dense())
            self._update(qe.UpdateOperation.delete_points_by_filter(to_filter(flt) or qe.Filter()))

    def set_payload(self, values: dict[str, Any], flt: Filter) -> None:
        """`dense_ready=True` is written to the dense shard only (edge_ready.py)."""
        self._writable()
        edge_ready.refuse(flt, "a payload change")
        if self.facet_fields & values.keys():
            raise ValueError(f"{sorted(self.facet_fields & values.keys())} are set only with their point (edge_facets.py)")
        if edge_ready.READY in values:
            if values[edge_ready.READY] is not True:
                raise ValueError("dense_ready is written False with its point, and only set True after (edge_ready.py)")
            values = {k: v for k, v in values.items() if k != edge_ready.READY}
            self._mark_embedded(flt)
            if not values:
                return
        flt = self._filter(flt) or Filter()
        if self._shard is not None:
            copied = filter_fields(to_stored(values))
            # The copies first, then the main shard, whose payload is the record: a crash
            # between the two leaves the change undone where the indexer looks (a session
            # not yet made visible is published again), never a copy that says less than the record.
            if copied and self._holds_vectors():
                for dense_filter in self._dense_filters(flt):
                    self._update(qe.UpdateOperation.set_payload_by_filter(dense_filter, copied), self._need_dense())
            self._update(qe.UpdateOperation.set_payload_by_filter(to_filter(flt) or qe.Filter(), to_stored(values)))

    def _mark_embedded(self, flt: Filter) -> None:
        """The waiting points of `flt` the dense shard does not hold get a point
        there without a vector: done, with nothing to embed."""
        if self._shard is None:
            return
        main, dense = self._need(), self._need_dense()
        with edge_errors(self.path, "reading"):
            pages = list(edge_ready.placeholders(main, dense, flt, self._filter, bool(self.facet_fields)))
        for page in pages:
            self._update(qe.UpdateOperation.upsert_points(page), dense)
            self._rolled(len(page))
