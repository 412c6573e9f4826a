"""A model switch on the embedded store: a new dense shard with the new size.

Edge cannot change a vector's size (loading with another config fails:
"Incompatible config for vector dense"), and the dense vectors have a shard of
their own (edge.py), so a switch fills `dense.next/`, created for the new
size, from the visible points of the main shard (their payloads are read, the
vectors come from `restage`), while `dense/` stays the searchable index. The
main shard keeps its points, and its `dense_ready` flags but for a few (`finish`). Then:

    meta.json gets {"switch": <the new meta>}            (what a roll-forward needs)
    dense -> dense.old, dense.next -> dense               (two renames)
    meta.json gets {"swapped": true}, dense.old removed
    the flags made to agree with dense/ (finish: a main True without its vector set False)
    meta.json = <the new meta>

`recover` (at every writable open, before the shards load) finishes or undoes
a swap a crash cut short: `dense.old` beside a complete `dense` means the
swap happened (roll forward); `dense.old` alone means it did not (renamed
back). A leftover `dense.next` is a copy never committed: removed, and the next
run copies again. `finish` (once they are loaded) sets the flags of a swapped
switch, which may be done again any number of times, and writes its meta.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from typing import TYPE_CHECKING, Any

import qdrant_edge as qe
from convo_tui.core.store import space
from convo_tui.core.store.base import DENSE, Cond, DenseSwitch, Filter, Restage
from convo_tui.core.store.edge_schema import (
    INDEX_SCHEMA,
    dense_config,
    dense_payload,
    edge_errors,
    from_stored,
    to_filter,
    to_stored,
)
from convo_tui.core.store.files import DENSE_SHARD

if TYPE_CHECKING:
    from convo_tui.core.store.edge import EdgeStore

NEXT_NAME = "dense.next"
OLD_NAME = "dense.old"
SWITCH_KEY = "switch"
SWAPPED_KEY = "swapped"
_VISIBLE = Filter(must=(Cond("visible", value=True),))
_FLAGGED = Filter(must=(Cond("dense_ready", any=(0, 1)),))
_PAGE = 2048


def recover(store: EdgeStore) -> None:
    """Finish or undo the renames of a swap a crash interrupted; drop an uncommitted copy."""
    dense, old, staged = store.path / DENSE_SHARD, store.path / OLD_NAME, store.path / NEXT_NAME
    meta = store.read_meta()
    if old.is_dir():
        if (dense / "edge_config.json").is_file() and isinstance(meta.get(SWITCH_KEY), dict):
            meta = {**meta, SWAPPED_KEY: True}
            store.write_meta(meta)
        else:
            shutil.rmtree(dense, ignore_errors=True)
            os.replace(old, dense)
        shutil.rmtree(old, ignore_errors=True)
    if staged.exists():
        shutil.rmtree(staged, ignore_errors=True)
    if SWITCH_KEY in meta and not meta.get(SWAPPED_KEY):
        store.write_meta({k: v for k, v in meta.items() if k not in (SWITCH_KEY, SWAPPED_KEY)})


def _mirrored(payload: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    """`payload` with the main shard's `dense_ready` (`before`'s) where it has one."""
    if "dense_ready" not in before:
        return payload
    return {**payload, "dense_ready": before["dense_ready"]}


def finish(store: EdgeStore) -> None:
    """Make a swapped switch's flags agree with the new dense shard, then write the
    switch's meta. A point is embedded when the main shard's flag says so or the
    dense shard holds it (edge_ready.py): only a main flag True whose vector the
    switch did not carry over is set False, in the main shard (few points: a
    vector the cache lacked for the new model). The main shard's False beside a
    held point is left as it is: setting it would move every such point of the
    main shard (Edge rewrites a point whose payload changes) for nothing. A copy
    that says True beside a main False (a switch swapped by an older convo-tui)
    is set False, in the dense shard."""
    meta = store.read_meta()
    if not (meta.get(SWAPPED_KEY) and isinstance(meta.get(SWITCH_KEY), dict)):
        return
    main, dense = store.live_shard(), store.live_dense()
    demoted: list[Any] = []  # main True, not held
    mirrored: list[Any] = []  # main False, held by a copy that says True
    offset = None
    while True:
        with edge_errors(store.path, "reading"):
            records, offset = main.scroll(
                qe.ScrollRequest(offset=offset, limit=_PAGE, filter=to_filter(_FLAGGED), with_payload=["dense_ready"])
            )
            copies = {
                str(r.id): bool((r.payload or {}).get("dense_ready"))
                for r in dense.retrieve([r.id for r in records], with_payload=["dense_ready"], with_vector=False)
            }
        for r in records:
            flag, copy = bool((r.payload or {}).get("dense_ready")), copies.get(str(r.id))
            if flag and copy is None:
                demoted.append(r.id)
            elif not flag and copy:
                mirrored.append(r.id)
        if offset is None:
            break
    for ids, write in ((demoted, store.write_main), (mirrored, store.write_dense)):
        for start in range(0, len(ids), _PAGE):
            flt = qe.Filter(must=[qe.HasIdCondition(set(ids[start : start + _PAGE]))])
            write(qe.UpdateOperation.set_payload_by_filter(flt, to_stored({"dense_ready": False})))
    store.flush()
    store.write_meta(meta[SWITCH_KEY])


class EdgeDenseSwitch(DenseSwitch):
    """`dense.next/` being filled from the live main shard, page by page."""

    def __init__(self, store: EdgeStore, dim: int):
        self.store = store
        self.path = store.path / NEXT_NAME
        store.require_writable()
        store.live_shard()
        space.require(store.path, space.WRITE_RESERVE, "write the index")
        shutil.rmtree(self.path, ignore_errors=True)
        with edge_errors(store.path, "creating"):
            self._shard: qe.EdgeShard | None = qe.EdgeShard.create(str(self.path), dense_config(dim))
            for name, kind in store.index_schema().items():
                self._shard.update(qe.UpdateOperation.create_field_index(name, INDEX_SCHEMA[kind]))
        self._offset: Any = None
        self._done = False

    def _staged(self) -> qe.EdgeShard:
        if self._shard is None:
            raise RuntimeError("the model switch was already committed or aborted")
        return self._shard

    def copy(self, restage: Restage, batch: int = 512) -> int:
        """The next page: restaged, and those with a vector written to `dense.next/`
        (the main shard's flags follow at the commit: see `finish`)."""
        if self._done:
            return 0
        staged = self._staged()
        with edge_errors(self.store.path, "reading"):
            records, self._offset = self.store.live_shard().scroll(
                qe.ScrollRequest(offset=self._offset, limit=batch, filter=to_filter(_VISIBLE), with_payload=True)
            )
            payloads = [from_stored(r.payload) for r in records]
        self._done = self._offset is None
        restaged = restage(payloads)
        # A copy's `dense_ready` is the main shard's flag, as every dense point's is
        # (edge_ready.py): holding the vector is what makes the point embedded.
        points = [
            qe.Point(
                record.id,
                {DENSE: [float(x) for x in dense]},
                dense_payload(to_stored(_mirrored(payload, before)), self.store.facet_fields),
            )
            for record, before, (payload, dense) in zip(records, payloads, restaged, strict=True)
            if dense is not None
        ]
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
        live = store.release_dense()
        try:
            if live is not None:
                with edge_errors(store.path, "closing"):
                    live.flush()
                    live.close()
            os.replace(store.path / DENSE_SHARD, store.path / OLD_NAME)
            os.replace(self.path, store.path / DENSE_SHARD)
        finally:
            recover(store)  # the swapped index (meta marked swapped), or the one it was
            store.reload_dense()
        finish(store)

    def abort(self) -> None:
        shard, self._shard = self._shard, None
        if shard is not None:
            with contextlib.suppress(Exception):  # the copy is thrown away whatever state it is in
                shard.close()
        shutil.rmtree(self.path, ignore_errors=True)
