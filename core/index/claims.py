"""Which sessions of a file a run writes: not those the user deleted, and a
session id only from the one file it belongs to (publish.py asks at each
session's first part)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from convo_tui.core.index.intake import FileWork, SessionStream
from convo_tui.core.index.manifest import Manifest
from convo_tui.core.index.progress import IndexReport


class SessionClaims:
    """`suppressed(session id, source path)`: True for a session the user deleted (core/annotations.py)."""

    def __init__(self, manifest: Manifest, suppressed: Callable[[str, str], bool]):
        self.manifest = manifest
        self.suppressed = suppressed

    def start(self, file: FileWork, session_id: str, session_path: str, report: IndexReport) -> SessionStream:
        """A session's first part: is it kept, and is it new to the index?"""
        stream = SessionStream(session_id, new=self.manifest.owner_of(session_id) is None)
        if self.suppressed(session_id, session_path) or not self._first_claim(file.key, file.path, session_id, report):
            stream.skip = True
            return stream
        file.entry.sessions.append(session_id)
        file.pending += 1
        return stream

    def _first_claim(self, key: str, path: str, session_id: str, report: IndexReport) -> bool:
        """A session id belongs to the file named after it once that file holds
        it in the index; within one run, to the first file that has it (newest
        first).

        Two files holding the same session (a backup copy, an export saved
        twice) would write the same point ids in the same generation, and the
        longer copy's extra turns would be published beside the shorter copy's
        record. The later copy is skipped and reported instead.
        """
        own = self._own_file(session_id, key, path)
        if own is not None:
            report.skipped.append((path, f"session {session_id} is also in {own}, the file named after it; indexed from there"))
            return False
        first = self.manifest.claim(session_id, key)
        if first == key:
            return True
        report.skipped.append((path, f"session {session_id} is also in {first}; indexed from there"))
        return False

    def _own_file(self, session_id: str, key: str, path: str) -> str | None:
        """The file named after this session, when this one is a copy under
        another name (a backup, a file cut short) and that file already holds
        the session in the index. A copy made today of a session indexed
        yesterday is the newest file, so it would otherwise be read first and
        replace the session with whatever it holds, turns cut off included."""
        if Path(path).stem == session_id:
            return None
        held = self.manifest.files_holding(session_id)
        return next((other for other in held if Path(other).stem == session_id and other != key), None)
