"""The status area: what the background indexer is doing, with a progress bar.

Indexing has two phases (core/index/publish.py): first sessions become searchable by
keyword (files n/N, sessions searchable so far), then they get their dense
vectors for search by meaning (texts n/N, with the time left). The label says
which, so a user knows keyword search already works while the bar still runs.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def progress_label(phase: str, done: int, total: int, sessions: int = 0, eta: float | None = None) -> str:
    """One line for the status area, per indexing phase."""
    if phase == "scan":
        return f"Indexing: checking files {done}/{total}" if total else "Indexing: checking files"
    if phase == "index":
        searchable = f" · {sessions} sessions searchable" if sessions else ""
        return f"Indexing: reading files {done}/{total}{searchable}" if total else f"Indexing: reading files{searchable}"
    if phase == "semantic":
        left = f" · about {_duration(eta)} left" if eta is not None else ""
        return f"Keyword search ready · semantic {done}/{total} texts{left}"
    if phase == "optimize":
        return "Keyword search ready · building the search graph"
    # The engine's own notices (core/index/publish.py IndexProgress): a model loading, a run
    # waiting for the one the holder has under way, a run going on here after its holder stopped.
    if phase == "model":
        return "Indexing: loading the embedding model"
    if phase == "wait":
        if not sessions and not total:
            return "Indexing: waiting for the index run under way to end"
        # What that run has done so far, read off the index (the app hears no progress of it).
        meaning = f" · semantic {done}/{total} texts" if total else ""
        return f"Indexing (another run): {sessions} sessions searchable{meaning}"
    if phase == "takeover":
        return "Indexing: the process holding the index stopped; going on here"
    return f"Indexing: {phase} {done}/{total}" if total else f"Indexing: {phase}"


class IndexStatus(Horizontal):
    """Visible while the index is opening, the model loading or files indexing."""

    def compose(self) -> ComposeResult:
        yield Label("Opening the index…", id="index-label")
        yield ProgressBar(total=None, show_eta=False, id="index-bar")

    def say(self, text: str) -> None:
        self.remove_class("-done")
        self.query_one("#index-label", Label).update(text)

    def progress(self, phase: str, done: int, total: int, path: str | None, sessions: int = 0, eta: float | None = None) -> None:
        self.remove_class("-done")
        self.query_one("#index-label", Label).update(progress_label(phase, done, total, sessions, eta))
        bar = self.query_one("#index-bar", ProgressBar)
        bar.update(total=total or None, progress=done)

    def finish(self) -> None:
        self.add_class("-done")
