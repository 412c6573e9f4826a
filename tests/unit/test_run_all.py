"""Embedding runs spread over sessions (core/embed/batching.py run_all), with no model."""

from __future__ import annotations

import os
import sys
import threading

import pytest
from convo_tui.core.embed.batching import EMBED_NICE, run_all, runner_count


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


def test_one_session_runs_every_batch_in_order_in_one_thread():
    seen = []
    run_all(["only"], [[2], [0, 1]], lambda session, batch: seen.append((session, batch, threading.current_thread())))
    assert [(session, batch) for session, batch, _ in seen] == [("only", [2]), ("only", [0, 1])]
    assert seen[0][2] is seen[1][2]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a nice value per thread is Linux's")
@pytest.mark.parametrize("sessions", [["only"], ["a", "b"]])
def test_runners_yield_the_cores_to_searches_and_leave_the_callers_priority_alone(sessions):
    caller = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen: list[int] = []
    run_all(
        sessions,
        [[n] for n in range(4)],
        lambda session, batch: seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id())),
    )
    assert seen and set(seen) == {min(19, caller + EMBED_NICE)}
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == caller
    spawned: list[int] = []
    thread = threading.Thread(target=lambda: spawned.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id())))
    thread.start()
    thread.join()
    assert spawned == [caller]  # a thread the caller starts after (a holder's, the app's) is not slowed


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
