"""Texts grouped for one model call by their real token counts.

A call pads every text to its longest, and onnxruntime's buffers for a call
grow with batch x length^2; grouping by the counted pieces (not a guess from
characters: code and CJK tokenise very differently from prose) keeps padding
near zero and every call small. Measured with MiniLM: 37-41 texts/s against
21-27 with character-estimated 512-piece batches, and a third of the peak
memory (BENCHMARKS.md, "Meaning at scale").
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from typing import Any


def exact_batches(lengths: Sequence[int], budget: int, max_batch: int = 64) -> list[list[int]]:
    """Indices grouped by real token count: sorted by length, a group holds at most
    `budget` padded pieces (its longest text times its size) and `max_batch` texts."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        if current and ((len(current) + 1) * lengths[i] > budget or len(current) >= max_batch):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


# Sessions that embed documents at once, one thread each (at most the cores):
# a run reads one text (the int8 graphs), and onnxruntime spreads one short
# text over two threads poorly. Measured on 2 cores with e5: 240 texts of the
# 1M history through phase 2's calls at 46-50 texts/s against 40-41 for one
# two-thread session, the 10k history indexed in 123 s against 199 s, the same
# vectors (BENCHMARKS.md, "Phase 2 on both cores"; MiniLM: dense.MINILM_RUNNERS).
MAX_RUNNERS = 4


def runner_count(threads: int | None) -> int:
    """`threads` when given, else the cores, at most MAX_RUNNERS."""
    return max(1, threads or min(os.cpu_count() or 1, MAX_RUNNERS))


# How much nicer than the process the threads that embed documents run (Linux
# keeps a nice value per thread). Phase 2 takes hours on a big history and keeps
# every core busy meanwhile; searches, the app's screen and the holder's answers
# then wait for the cores behind it. At +10 the scheduler gives a thread of the
# process' own priority about nine times their share of a core it wants, and a
# machine with nothing else to do still gives the runners all of it.
EMBED_NICE = 10


def yield_to_searches() -> None:
    """Lower the calling thread's CPU priority by EMBED_NICE (Linux only: elsewhere
    the call would name a process). Threads it starts after inherit it."""
    if not sys.platform.startswith("linux"):
        return
    me = threading.get_native_id()
    with suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, me, min(19, os.getpriority(os.PRIO_PROCESS, me) + EMBED_NICE))


def run_all(sessions: Sequence[Any], batches: Sequence[list[int]], run: Callable[[Any, list[int]], None]) -> None:
    """`run(session, batch)` for every batch, each session in a thread of its own
    taking the next batch when it is free (texts differ in length: fixed shares
    would leave one waiting); a runner's error is raised here. The runners are
    threads of this call, at a lower priority (`yield_to_searches`): the caller's
    own priority, and that of the threads it starts later, stay as they were."""
    todo = iter(batches)
    taking = threading.Lock()

    def runner(session: Any) -> None:
        yield_to_searches()
        while True:
            with taking:
                batch = next(todo, None)
            if batch is None:
                return
            run(session, batch)

    used = list(sessions[: len(batches)])
    if not used:
        return
    with ThreadPoolExecutor(len(used), thread_name_prefix="embed-run") as pool:
        for future in [pool.submit(runner, session) for session in used]:
            future.result()
