"""The status area: what the background indexer is doing, with a progress bar."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar


class IndexStatus(Horizontal):
    """Visible while the index is opening, the model loading or files indexing."""

    def compose(self) -> ComposeResult:
        yield Label("Opening the index…", id="index-label")
        yield ProgressBar(total=None, show_eta=False, id="index-bar")

    def say(self, text: str) -> None:
        self.remove_class("-done")
        self.query_one("#index-label", Label).update(text)

    def progress(self, phase: str, done: int, total: int, path: str | None) -> None:
        self.remove_class("-done")
        label = f"Indexing: {phase} {done}/{total}" if total else f"Indexing: {phase}"
        self.query_one("#index-label", Label).update(label)
        bar = self.query_one("#index-bar", ProgressBar)
        bar.update(total=total or None, progress=done)

    def finish(self) -> None:
        self.add_class("-done")
