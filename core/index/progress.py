"""What an index run reports as it goes and at its end, and how it is stopped."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class IndexProgress:
    """One progress event. Phases: "scan" (files checked), "index" (phase 1:
    files parsed, `sessions` published and searchable by keyword so far),
    "semantic" (phase 2: texts given a dense vector, with `eta` seconds),
    "optimize", "done"."""

    phase: str
    done: int
    total: int
    path: str | None = None
    sessions: int = 0
    eta: float | None = None


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


ProgressFn = Callable[[IndexProgress], None]
CancelLike = threading.Event | Callable[[], bool] | None


def source_key(path: Path) -> str:
    return os.path.abspath(path)


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
