"""Damaged copies of an index for the health tests: every kind of file Qdrant
Edge keeps, cut short, removed or overwritten."""

from __future__ import annotations

import os
from pathlib import Path

import qdrant_edge as qe
from convo_tui.core.store.base import DENSE, SPARSE
from convo_tui.core.store.edge_schema import DENSE_QUANTIZATION, HNSW
from convo_tui.core.store.files import DENSE_SHARD, SHARD


def optimize_small(index_dir: Path, dim: int) -> None:
    """Have Edge build optimized (immutable) segments of even a small index, as
    it does for large ones: each shard loaded once with an indexing threshold of
    1 KB, optimized, closed."""
    configs = {
        SHARD: qe.EdgeConfig(
            sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf, memory=qe.Memory.Cold)},
            payload_memory=qe.Memory.Cold,
            optimizers=qe.EdgeOptimizersConfig(indexing_threshold=1),
        ),
        DENSE_SHARD: qe.EdgeConfig(
            vectors={
                DENSE: qe.EdgeVectorParams(
                    size=dim, distance=qe.Distance.Cosine, memory=qe.Memory.Cold, quantization_config=DENSE_QUANTIZATION
                )
            },
            hnsw_config=HNSW,
            payload_memory=qe.Memory.Cold,
            optimizers=qe.EdgeOptimizersConfig(indexing_threshold=1),
        ),
    }
    for name, config in configs.items():
        shard = qe.EdgeShard.load(str(index_dir / name), config)
        try:
            shard.optimize()
        finally:
            shard.close()


def one(index_dir: Path, pattern: str) -> Path:
    """The first file matching `pattern` under either shard (main first)."""
    found = [p for name in (SHARD, DENSE_SHARD) for p in sorted((index_dir / name).glob(pattern))]
    assert found, pattern
    return found[0]


def damage(path: Path, how: str) -> None:
    size = path.stat().st_size
    if how == "delete":
        path.unlink()
    elif how == "cut":  # to a million bytes, or a third of a smaller file
        os.truncate(path, 1_000_000 if size > 1_200_000 else size // 3)
    elif how == "junk":  # the first block overwritten
        with open(path, "r+b") as handle:
            handle.write(b"\xff" * min(size, 4096))
        # A tracker's journal would repair it at the next open (Edge replays it): gone too,
        # as it is once it grew past a thousand writes.
        (path.parent / "tracker_journal.dat").unlink(missing_ok=True)
    else:
        raise ValueError(how)
