"""Keep a held index fresh: re-index the transcripts that change under the sources.

`watchfiles` (Rust notify: inotify, FSEvents, ReadDirectoryChangesW) reports
changes in batches; each batch is indexed incrementally (unchanged files are
skipped by hash), so a transcript Claude Code, Codex or Cursor writes is
searchable a second or two after the write settles. Deleted files are left in
the index: it is an archive until `prune`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from convo_tui.core.engine import Engine
    from convo_tui.core.index.publish import IndexReport

# Milliseconds of quiet before a batch of changes is handed over (a streaming
# transcript is appended to many times a second).
DEBOUNCE_MS = 400


def watched_roots(paths: Iterable[Path]) -> list[Path]:
    """The folders (or files) to watch: those that exist, without one inside another."""
    roots = sorted({p.expanduser().absolute() for p in paths if p.exists()}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for root in roots:
        if not any(root.is_relative_to(k) for k in kept):
            kept.append(root)
    return kept


class StopFlag(Protocol):
    """A threading.Event, or anything else with `is_set` that says when to stop."""

    def is_set(self) -> bool: ...


def watch_and_index(
    engine: Engine,
    roots: list[Path],
    stop: StopFlag,
    on_report: Callable[[IndexReport], None] | None = None,
    on_watching: Callable[[], None] | None = None,
) -> None:
    """Index every changed file under `roots` until `stop` is set (an index run under
    way stops too, within a model batch; KeyboardInterrupt passes through).

    The watch is in place only once watchfiles first yields (an empty batch after
    a second of quiet): then `roots` are indexed once more, so a file written
    between the caller's first index run and that moment is not missed, and
    `on_watching` says the watch is live."""
    from watchfiles import Change, watch

    live = False
    for changes in watch(*roots, debounce=DEBOUNCE_MS, stop_event=stop, rust_timeout=1000, yield_on_timeout=True):
        if not live:
            live = True
            caught_up = engine.index(list(roots), cancel=stop.is_set)  # incremental: unchanged files are skipped unread
            if on_report is not None:
                on_report(caught_up)
            if on_watching is not None:
                on_watching()
        changed = sorted({Path(path) for kind, path in changes if kind != Change.deleted and Path(path).is_file()})
        if not changed:
            continue
        report = engine.index(changed, cancel=stop.is_set)
        if on_report is not None:
            on_report(report)
