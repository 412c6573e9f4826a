"""Phase 2 walks the sessions newest first from the manifest, a few at a time, and
stops once every waiting point came: it does not list every waiting point before
the model starts (28 s a run at a million messages while texts waited)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from convo_tui.core.index import dense_phase
from convo_tui.core.index.dense_phase import DensePhase
from convo_tui.core.index.manifest import Manifest
from convo_tui.core.index.publish import visible_filter
from convo_tui.core.store.base import Cond
from convo_tui.core.store.edge import EdgeStore

from tests.engine.test_two_phase import TOPICS, CountingEmbedder, run, write_cursor


def sessions(folder: Path, count: int) -> list[Path]:
    """`count` sessions of three turns each on their own topic, s0 the oldest file."""
    paths = []
    for i in range(count):
        turns = [(f"Question {j} about {TOPICS[i]}?", f"Answer {j}: {TOPICS[i]} is fixed by step {j}.") for j in range(3)]
        path = write_cursor(folder, f"s{i}", turns)
        os.utime(path, (1_700_000_000 + 1000 * i, 1_700_000_000 + 1000 * i))
        paths.append(path)
    return paths


def topic_of(text: str) -> int:
    return next(i for i, topic in enumerate(TOPICS) if topic in text)


class CountedScroll:
    """Counts the store's scroll calls and the points they gave."""

    def __init__(self, store: EdgeStore):
        self.inner, self.calls, self.points = store.scroll, 0, 0
        store.scroll = self  # type: ignore[method-assign]

    def __call__(self, *args, **kwargs):
        self.calls += 1
        for point in self.inner(*args, **kwargs):
            self.points += 1
            yield point


def waiting(store: EdgeStore) -> int:
    return store.count(visible_filter(Cond("dense_ready", value=False)))


def newest_first(store: EdgeStore) -> list[str]:
    """The manifest's order, as the indexer hands it to phase 2."""
    manifest = Manifest.load(store.path)
    try:
        return manifest.sessions_newest_first()
    finally:
        manifest.close()


@contextmanager
def six_sessions(tmp_path: Path, *, semantic: bool) -> Iterator[tuple[EdgeStore, CountingEmbedder, Any]]:
    """A store holding six sessions (s5 the newest file) indexed with or without
    phase 2, the model, and the run's report; the store is closed after the block."""
    sessions(tmp_path / "src", 6)
    store = EdgeStore(tmp_path / "index")
    try:
        dense = CountingEmbedder()
        yield store, dense, run(store, tmp_path / "src", dense, semantic=semantic)
    finally:
        store.close()


def test_the_model_starts_on_the_newest_session_and_the_sessions_come_newest_first(tmp_path, monkeypatch):
    monkeypatch.setattr(dense_phase, "ROUND_TEXTS", 2)
    monkeypatch.setattr(dense_phase, "FIRST_SESSIONS", 1)
    with six_sessions(tmp_path, semantic=False) as (store, dense, first):
        assert first.semantic_total >= 12
        order = newest_first(store)
        scroll = CountedScroll(store)
        read_at_first_embed: list[int] = []
        dense.on_embed = lambda: read_at_first_embed.append(scroll.points)
        added, cancelled = DensePhase(store, dense, None, lambda: order).run(None, None)
        assert not cancelled and added == first.semantic_total and waiting(store) == 0
        # Before the model's first call only the newest session's points were read.
        assert read_at_first_embed[0] <= first.semantic_total // 6, (read_at_first_embed, first.semantic_total)
        topics = list(dict.fromkeys(topic_of(text) for text in dense.texts))
        assert topics == [5, 4, 3, 2, 1, 0]


def test_a_finished_index_given_one_new_session_reads_that_session_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(dense_phase, "FIRST_SESSIONS", 1)
    with six_sessions(tmp_path, semantic=True) as (store, dense, first):
        assert first.semantic_ready > 0 and waiting(store) == 0
        fresh = write_cursor(tmp_path / "src", "fresh", [(f"Follow-up {j}: {TOPICS[0]} again?", f"Reply {j}.") for j in range(2)])
        os.utime(fresh, (1_800_000_000, 1_800_000_000))
        second = run(store, tmp_path / "src", dense, semantic=False)
        new = waiting(store)
        assert 0 < new < second.semantic_total
        order = newest_first(store)
        scroll = CountedScroll(store)
        dense.texts.clear()
        added, _ = DensePhase(store, dense, None, lambda: order).run(None, None)
        assert added == new and waiting(store) == 0
        # One query for the one session, none for the five done, no list of what waits.
        assert (scroll.calls, scroll.points) == (1, new)


@pytest.mark.parametrize("named", [0, 2])
def test_sessions_the_order_does_not_name_are_embedded_after_it_and_once(tmp_path, monkeypatch, named):
    """A manifest that lost a file (or a phase run with no order at all) leaves
    sessions to the scan of what still waits: each text is embedded once."""
    # Nine waiting points a session: the named sessions' points are read but not yet
    # embedded when the scan comes, and its first group (three sessions) holds them.
    monkeypatch.setattr(dense_phase, "ROUND_TEXTS", 20)
    monkeypatch.setattr(dense_phase, "FIRST_SESSIONS", 1)
    with six_sessions(tmp_path, semantic=False) as (store, dense, first):
        order = newest_first(store)[:named]
        added, cancelled = DensePhase(store, dense, None, lambda: order).run(None, None)
        assert not cancelled and added == first.semantic_total and waiting(store) == 0
        assert len(dense.texts) == len(set(dense.texts))
