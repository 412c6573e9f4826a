"""Switching an index to another dense model without indexing it again.

The sessions stay as they were published: same points, payloads and BM25
vectors (nothing is parsed, BM25 is not computed again). Only the dense vectors
change: the store copies its visible points into a container sized for the
new model (core/store/edge_switch.py), with the vectors the content cache
already holds for that model; the other points are marked `dense_ready=False`
and phase 2 (dense_phase.py) embeds them, newest sessions first, resumably.

Until the commit, searches run on the old index with the old model; after
it, keyword search covers everything and semantic search grows as phase 2
goes. A crash before the commit leaves the old index (the next run copies
again); after it, the next run's phase 2 goes on where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from convo_tui.core.index.dense_phase import point_text
from convo_tui.core.index.vector_cache import VectorCache
from convo_tui.core.store.base import Cond, Filter, Store

SwitchProgress = Callable[[int, int], None]  # points copied, points to copy


@dataclass
class SwitchResult:
    copied: int = 0  # points carried over (payload and BM25 vector as stored)
    reused: int = 0  # of those, given their new dense vector from the cache
    pending: int = 0  # left for phase 2 to embed
    cancelled: bool = False


def switch_dense_model(
    store: Store,
    dense: Any,
    cache: VectorCache | None,
    meta: dict[str, Any],
    *,
    progress: SwitchProgress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> SwitchResult:
    """Give the index `dense`'s vectors (size `dense.dim`); `meta` is the index's
    new metadata, written in the same step as the swap."""
    notify = progress or (lambda _done, _total: None)
    result = SwitchResult()
    total = store.count(Filter(must=(Cond("visible", value=True),)))

    def restage(payloads: list[dict[str, Any]]) -> list[tuple[dict[str, Any], Sequence[float] | None]]:
        texts = {point_text(p) for p in payloads if "dense_ready" in p}
        cached = cache.get_many(t for t in texts if t) if cache is not None else {}
        out: list[tuple[dict[str, Any], Sequence[float] | None]] = []
        for payload in payloads:
            if "dense_ready" not in payload:  # a point that never has a dense vector
                out.append((payload, None))
                continue
            text = point_text(payload)
            vector = cached.get(text) if text else None
            # Nothing to embed counts as done, as in phase 2.
            ready = vector is not None or not text
            result.reused += vector is not None
            result.pending += not ready
            out.append(({**payload, "dense_ready": ready}, vector))
        return out

    switch = store.begin_dense_switch(dense.dim)
    try:
        notify(0, total)
        while True:
            if cancelled is not None and cancelled():
                switch.abort()
                result.cancelled = True
                return result
            copied = switch.copy(restage)
            if not copied:
                break
            result.copied += copied
            notify(result.copied, total)
        switch.commit(meta)
    except BaseException:
        switch.abort()
        raise
    return result
