"""The user's edits of a session: title, description, star, tags, display
settings, deletion from the index. Kept beside the index (core/annotations.py),
they survive re-indexing; the source transcript is never touched."""

from __future__ import annotations

from pathlib import Path

from convo_tui.core.annotations import Annotations, normalize_tags, tag_key
from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.hits import SessionSummary
from convo_tui.core.index.manifest import Manifest
from convo_tui.core.index.source_files import source_key
from convo_tui.core.library.reading import Reader
from convo_tui.core.store.base import Cond, Filter, Store


class Editor:
    def __init__(self, reader: Reader, store: Store, annotations: Annotations, manifest_dir: Path, *, read_only: bool):
        self.reader = reader
        self.store = store
        self.annotations = annotations
        self.manifest_dir = manifest_dir
        self.read_only = read_only

    def rename(self, session_id: str, title: str) -> SessionSummary:
        """A blank title gives the source's title back."""
        self.reader.session_summary(session_id)
        self.annotations.set_title(session_id, title)
        return self.reader.session_summary(session_id)

    def describe(self, session_id: str, text: str) -> SessionSummary:
        self.reader.session_summary(session_id)
        self.annotations.set_description(session_id, text)
        return self.reader.session_summary(session_id)

    def star(self, session_id: str, starred: bool) -> SessionSummary:
        self.reader.session_summary(session_id)
        self.annotations.set_starred(session_id, starred)
        return self.reader.session_summary(session_id)

    def tag(self, session_id: str, tags: list[str], *, remove: bool) -> SessionSummary:
        """Add `tags` (or remove them) and keep the others."""
        current = self.reader.session_summary(session_id).tags
        if remove:
            dropped = {tag_key(t) for t in normalize_tags(tags)}
            kept = [t for t in normalize_tags(current) if tag_key(t) not in dropped]  # `#foo` of before is `foo`
            self.annotations.set_tags(session_id, kept)
        else:
            self.annotations.set_tags(session_id, [*current, *tags])
        return self.reader.session_summary(session_id)

    def settings(self, session_id: str) -> dict[str, bool]:
        """How the app shows the session: hide_thinking, hide_tools."""
        self.reader.session_summary(session_id)
        return self.annotations.get(session_id).effective_settings()

    def set_settings(self, session_id: str, values: dict[str, bool]) -> dict[str, bool]:
        self.reader.session_summary(session_id)
        return self.annotations.set_settings(session_id, **values)

    def delete(self, session_id: str) -> None:
        """Remove the session's points; re-indexing skips it until its source file
        changes or `restore` is called."""
        if self.read_only:
            raise IndexUnavailable("the index is open read-only; cannot delete a session")
        summary = self.reader.session_summary(session_id)
        self.annotations.mark_deleted(session_id, summary.path)
        self.store.delete(Filter(must=(Cond("session_id", value=session_id),)))
        self.store.flush()

    def restore(self, session_id: str) -> bool:
        """Forget a deletion (True if there was one); the next index run brings it back."""
        deletion = self.annotations.get(session_id).deleted
        if deletion is None or not self.annotations.restore(session_id):
            return False
        # Make the next run parse the source again even though it did not change.
        manifest = Manifest.load(self.manifest_dir)
        try:
            for key in manifest.files_holding(session_id):
                manifest.remove(key)
            if deletion.path:
                manifest.remove(source_key(Path(deletion.path)))
            manifest.save()
        finally:
            manifest.close()
        return True
