"""Embedding runs spread over sessions (core/embed/batching.py run_all), with no model."""

from __future__ import annotations

import threading

import pytest
from convo_tui.core.embed.batching import run_all, runner_count


def test_every_batch_runs_once_and_every_session_takes_a_share():
    seen: list[tuple[str, list[int]]] = []
    started = threading.Barrier(2, timeout=10)  # the first two runs wait for each other: two runners at once

    def run(session, batch):
        if batch in ([0], [1]):
            started.wait()
        seen.append((session, batch))

    batches = [[n] for n in range(20)]
    run_all(["a", "b"], batches, run)
    assert sorted(batch for _, batch in seen) == batches
    assert {session for session, _ in seen} == {"a", "b"}


def test_one_session_runs_every_batch_in_order_on_the_caller_thread():
    seen = []
    run_all(["only"], [[2], [0, 1]], lambda session, batch: seen.append((session, batch, threading.current_thread())))
    assert seen == [("only", [2], threading.current_thread()), ("only", [0, 1], threading.current_thread())]


def test_a_runners_error_is_raised_to_the_caller():
    def run(session, batch):
        if batch == [3]:
            raise ValueError("run failed")

    with pytest.raises(ValueError, match="run failed"):
        run_all(["a", "b"], [[n] for n in range(6)], run)


def test_runners_are_the_threads_asked_for_else_the_cores_at_most_four(monkeypatch):
    assert runner_count(1) == 1 and runner_count(3) == 3
    monkeypatch.setattr("os.cpu_count", lambda: 16)
    assert runner_count(None) == 4
    monkeypatch.setattr("os.cpu_count", lambda: None)
    assert runner_count(None) == 1
