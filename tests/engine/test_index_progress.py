"""Semantic progress that means something (issue 23): n of the whole index across
restarts, and a long session's vectors and progress arriving batch by batch.

Real Edge store and bundled model; the embedder is wrapped only to count and to
cancel at a chosen batch (as test_two_phase.py does).
"""

from __future__ import annotations

import threading
from pathlib import Path

from convo_tui.core.index import dense_phase
from convo_tui.core.index.publish import visible_filter
from convo_tui.core.store.base import Cond
from convo_tui.core.store.edge import EdgeStore

from tests.engine.test_two_phase import CountingEmbedder, corpus, one_long_session, run


def _ready(store) -> int:
    return store.count(visible_filter(Cond("dense_ready", value=True)))


def test_semantic_progress_counts_what_the_index_already_holds_across_restarts(tmp_path: Path):
    """ "0/3528 after 35% was done" was the bug: a second run starts where the first stopped."""
    src, store = tmp_path / "src", EdgeStore(tmp_path / "index")
    try:
        corpus(src)
        dense = CountingEmbedder()
        cancel = threading.Event()
        dense.on_embed = cancel.set  # stopped after the first model batch
        first = run(store, src, dense, cancel=cancel)
        assert first.cancelled and 0 < first.semantic_ready < first.semantic_total
        dense.on_embed = None

        told: list[tuple[int, int]] = []
        from convo_tui.core.embed.sparse import SparseEmbedder
        from convo_tui.core.index.manifest import Manifest
        from convo_tui.core.index.publish import Indexer

        indexer = Indexer(store, Manifest.load(store.path), dense, SparseEmbedder())
        files = sorted(src.rglob("*.txt"))
        report = indexer.run(files, progress=lambda p: told.append((p.done, p.total)) if p.phase == "semantic" else None)
        assert told[0] == (first.semantic_ready, first.semantic_total)
        assert told[-1] == (report.semantic_total, report.semantic_total)
        assert [done for done, _ in told] == sorted(done for done, _ in told)
    finally:
        store.close()


def test_a_long_session_is_given_vectors_and_told_batch_by_batch(tmp_path: Path, monkeypatch):
    """One session of many texts was one silent round: no progress and nothing found by
    meaning until all of it was embedded (the ETA sat still for minutes)."""
    monkeypatch.setattr(dense_phase, "WRITE_POINTS", 16)
    monkeypatch.setattr(dense_phase, "PROGRESS_SECONDS", 0.0)
    turns = [(f"Question {i}: how do I tune shard {i}?", f"Answer {i}: raise the segment count to {i}.") for i in range(40)]
    with one_long_session(tmp_path, turns) as (store, dense, first):
        assert first.semantic_ready == 0 and first.semantic_total > 100
        seen: list[tuple[int, int]] = []  # (done told, vectors the store holds at that moment)
        phase = dense_phase.DensePhase(store, dense, None)
        added, cancelled = phase.run(lambda done, total, eta, rate: seen.append((done, _ready(store))))
        assert not cancelled and added == first.semantic_total
        middle = [done for done, _ in seen if 0 < done < first.semantic_total]
        assert len(middle) >= 3, seen  # told along the way, not only at the start and the end
        assert all(done == ready for done, ready in seen), "told what the store does not hold yet"
