"""What the archive holds and what is at risk, for `sources` and the app's warnings;
what an export or an import did (plain records the holder sends as they are).

Counted from the index's manifest (which sessions each source file held) and
the archive: a session whose file is gone lives on only here when the archive
holds the file; without it, `index --rebuild` would lose it. The tools'
retention settings (core/archive/retention.py) say what they will delete
next, in one line each.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from convo_tui.core.archive.retention import Retention, describe


@dataclass(frozen=True)
class ArchiveStatus:
    enabled: bool
    folder: str
    files: int = 0  # transcripts archived
    versions: int = 0
    raw_bytes: int = 0  # what they hold, uncompressed and deduplicated
    disk_bytes: int = 0  # what the archive takes on disk
    cap_bytes: int = 0  # its size cap (0: none)
    only_here: int = 0  # indexed sessions whose source is gone, kept by the archive
    only_here_by_source: dict[str, int] = field(default_factory=dict)
    unkept: int = 0  # indexed sessions whose source is gone and that the archive lacks
    machines: list[str] = field(default_factory=list)  # one line per remote machine
    warnings: list[str] = field(default_factory=list)  # what the user should know now, one line each

    @property
    def full(self) -> bool:
        return bool(self.cap_bytes) and self.disk_bytes >= self.cap_bytes

    def lines(self) -> list[str]:
        """As `convo-tui sources` prints it."""
        if not self.enabled:
            head = "archive: off ([archive] enabled = false): sessions whose source is gone live only in the index"
        else:
            cap = f" of {_mb(self.cap_bytes)}" if self.cap_bytes else ""
            head = (
                f"archive: {self.files} transcript files, {self.versions} versions, {_mb(self.raw_bytes)} kept in "
                f"{_mb(self.disk_bytes)}{cap} ({self.folder}); {self.only_here} session{'s' * (self.only_here != 1)} "
                f"{'exists' if self.only_here == 1 else 'exist'} only here"
            )
        return [head, *(f"  {line}" for line in self.machines), *self.warnings]


def _mb(size: int) -> str:
    return f"{size / 2**20:.1f} MB"


@dataclass(frozen=True)
class SourceFile:
    """One manifest entry, as the counts need it."""

    key: str
    format: str
    sessions: int


def gone_counts(files: list[SourceFile], archived: set[str]) -> tuple[dict[str, int], int]:
    """Sessions whose source file is gone: (kept by the archive, per source), and those it lacks."""
    kept: dict[str, int] = {}
    unkept = 0
    for file in files:
        if not file.sessions or os.path.lexists(file.key):
            continue
        if file.key in archived:
            kept[file.format] = kept.get(file.format, 0) + file.sessions
        else:
            unkept += file.sessions
    return kept, unkept


def retention_warning(
    rule: Retention, files: list[SourceFile], archived: set[str] | None, now: float | None = None
) -> str | None:
    """One line about a tool that deletes sessions from its folders (`archived`: the
    archive's files, None when it is off), or None when none of its sessions are indexed."""
    mine = [f for f in files if f.sessions and rule.covers(f.key)]
    if not mine:
        return None
    due = kept = 0
    cutoff = (now or time.time()) - rule.days * 86400 if rule.days is not None else None
    for file in mine:
        try:
            stamp = os.stat(file.key).st_mtime
        except OSError:
            kept += file.sessions if archived is not None and file.key in archived else 0
            continue
        if cutoff is not None and stamp < cutoff:
            due += file.sessions
    said = describe(rule)
    if due:
        said += f"; {due} of its sessions here {'is' if due == 1 else 'are'} past that and {'goes' if due == 1 else 'go'} at its next start"
    if archived is not None:
        return f"{said}; convo-tui keeps a copy ({kept} session{'s' * (kept != 1)} {'are' if kept != 1 else 'is'} kept only here)"
    return f"{said}; the archive is off ([archive] enabled = false), so `index --rebuild` would lose what it deleted"


@dataclass(frozen=True)
class ExportReport:
    path: str
    files: int
    versions: int
    annotations: int
    bytes: int


@dataclass(frozen=True)
class ImportReport:
    path: str
    files: int  # transcript files new here
    versions: int
    skipped: int  # versions left out as damaged or unsafe
    annotations: int  # sessions whose edits changed
    machine: str  # where the export was made
