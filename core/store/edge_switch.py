"""A model switch on the embedded store: a second shard with the new dense size.

Edge cannot change a vector's size nor add a named vector to a shard (loading
with another config fails: "Incompatible config for vector dense"), so a
switch copies every visible point (id, payload, BM25 vector, as stored: the
sessions are not parsed and BM25 is not computed again) into `shard.next/`,
created with the new config, while `shard/` stays the searchable index. Then:

    meta.json gets {"switch": <the new meta>}    (what a roll-forward needs)
    shard -> shard.old, shard.next -> shard      (two renames)
    meta.json = <the new meta>, shard.old removed

`recover` (at every writable open) finishes or undoes a swap a crash cut short:
`shard.old` beside a complete `shard` means the swap happened (roll forward:
the switch's meta is written); `shard.old` alone means it did not (renamed
back). A leftover `shard.next` is a copy never committed: removed, and the
next run copies again.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from typing import TYPE_CHECKING, Any

import qdrant_edge as qe
from convo_tui.core.store import space
from convo_tui.core.store.base import DENSE, PAYLOAD_INDEXES, SPARSE, Cond, DenseSwitch, Filter, Restage
from convo_tui.core.store.edge_schema import INDEX_SCHEMA, edge_errors, from_stored, shard_config, to_filter, to_stored
from convo_tui.core.store.files import SHARD

if TYPE_CHECKING:
    from convo_tui.core.store.edge import EdgeStore

NEXT_NAME = "shard.next"
OLD_NAME = "shard.old"
SWITCH_KEY = "switch"
_VISIBLE = Filter(must=(Cond("visible", value=True),))


def recover(store: EdgeStore) -> None:
    """Finish or undo a swap a crash interrupted; drop an uncommitted copy."""
    shard, old, staged = store.path / SHARD, store.path / OLD_NAME, store.path / NEXT_NAME
    if old.is_dir():
        if (shard / "edge_config.json").is_file():
            meta = store.read_meta()
            if isinstance(meta.get(SWITCH_KEY), dict):
                store.write_meta(meta[SWITCH_KEY])
            shutil.rmtree(old, ignore_errors=True)
        else:
            shutil.rmtree(shard, ignore_errors=True)
            os.replace(old, shard)
    if staged.exists():
        shutil.rmtree(staged, ignore_errors=True)
    meta = store.read_meta()
    if SWITCH_KEY in meta:
        store.write_meta({k: v for k, v in meta.items() if k != SWITCH_KEY})


class EdgeDenseSwitch(DenseSwitch):
    """`shard.next/` being filled from the live shard, page by page."""

    def __init__(self, store: EdgeStore, dim: int):
        self.store = store
        self.path = store.path / NEXT_NAME
        store.require_writable()
        store.live_shard()
        space.require(store.path, space.WRITE_RESERVE, "write the index")
        shutil.rmtree(self.path, ignore_errors=True)
        with edge_errors(store.path, "creating"):
            self._shard: qe.EdgeShard | None = qe.EdgeShard.create(str(self.path), shard_config(dim))
            for name, kind in PAYLOAD_INDEXES.items():
                self._shard.update(qe.UpdateOperation.create_field_index(name, INDEX_SCHEMA[kind]))
        self._offset: Any = None
        self._done = False

    def _staged(self) -> qe.EdgeShard:
        if self._shard is None:
            raise RuntimeError("the model switch was already committed or aborted")
        return self._shard

    def copy(self, restage: Restage, batch: int = 512) -> int:
        if self._done:
            return 0
        staged = self._staged()
        with edge_errors(self.store.path, "reading"):
            records, self._offset = self.store.live_shard().scroll(
                qe.ScrollRequest(
                    offset=self._offset, limit=batch, filter=to_filter(_VISIBLE), with_payload=True, with_vector=[SPARSE]
                )
            )
        self._done = self._offset is None
        restaged = restage([from_stored(r.payload) for r in records])
        points = []
        for record, (payload, dense) in zip(records, restaged, strict=True):
            vector: dict[str, Any] = {}
            sparse = record.vector.get(SPARSE) if isinstance(record.vector, dict) else None
            if sparse is not None:
                vector[SPARSE] = sparse
            if dense is not None:
                vector[DENSE] = [float(x) for x in dense]
            points.append(qe.Point(record.id, vector, to_stored(payload)))
        if points:
            space.require(self.store.path, space.WRITE_RESERVE, "write the index")
            with edge_errors(self.store.path, "writing"):
                staged.update(qe.UpdateOperation.upsert_points(points))
        return len(records)

    def commit(self, meta: dict[str, Any]) -> None:
        store = self.store
        staged = self._staged()
        with edge_errors(store.path, "writing"):
            staged.flush()
            staged.close()
        self._shard = None
        store.write_meta({**store.read_meta(), SWITCH_KEY: meta})
        live = store.release_shard()
        try:
            if live is not None:
                with edge_errors(store.path, "closing"):
                    live.flush()
                    live.close()
            os.replace(store.path / SHARD, store.path / OLD_NAME)
            os.replace(self.path, store.path / SHARD)
            store.write_meta(meta)
            shutil.rmtree(store.path / OLD_NAME, ignore_errors=True)
        finally:
            recover(store)  # after a failure: the index as it was, or the switched one
            store.reload_shard()

    def abort(self) -> None:
        shard, self._shard = self._shard, None
        if shard is not None:
            with contextlib.suppress(Exception):  # the copy is thrown away whatever state it is in
                shard.close()
        shutil.rmtree(self.path, ignore_errors=True)
