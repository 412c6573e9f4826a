"""What an index run reports as it goes and at its end, and how it is stopped."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class IndexProgress:
    """One progress event. Phases: "wait" (another index run of this process
    goes first: this one starts when it ends), "takeover" (the process that
    ran it stopped: the run goes on where the index is held now), "model"
    (the dense model named in `path` is loading), "switch" (the index's
    vectors move to another model: points copied), "scan" (files checked), "index"
    (phase 1: `done` of `total` files parsed, `sessions` published and
    searchable by keyword so far), "semantic" (phase 2: `done` of `total` texts
    of the whole index have a dense vector, counting what earlier runs did),
    "optimize", "done". `eta` (seconds left) and `rate` (files or texts per
    second) come from the pace of the last minute (throughput.py); None
    while it is not known yet."""

    phase: str
    done: int
    total: int
    path: str | None = None
    sessions: int = 0
    eta: float | None = None
    rate: float | None = None


@dataclass
class IndexReport:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    sessions: int = 0
    points: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    # Phase 2: texts embedded by the model in this run, points given a dense
    # vector, and the state of the whole index afterwards.
    embedded: int = 0
    vectors_added: int = 0
    semantic_ready: int = 0
    semantic_total: int = 0
    keyword_seconds: float = 0.0
    # One line each about the run itself, not a file's fault (a damaged vector cache
    # started afresh, an unreachable machine, a full archive: core/archive/, core/remote/).
    notes: list[str] = field(default_factory=list)


ProgressFn = Callable[[IndexProgress], None]
CancelLike = threading.Event | Callable[[], bool] | None


def is_cancelled(cancel: CancelLike) -> bool:
    """Whether a cancel signal (an Event, a callable or None) says stop."""
    if cancel is None:
        return False
    if isinstance(cancel, threading.Event):
        return cancel.is_set()
    return bool(cancel())


class CancelView:
    """An Event-like view of a cancel callable, for code that calls is_set()."""

    def __init__(self, cancel: CancelLike):
        self._cancel = cancel

    def is_set(self) -> bool:
        return is_cancelled(self._cancel)
