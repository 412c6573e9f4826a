"""The library's archive part: the archive and the remote machines an index run
uses, the status `sources` and the app show, and export / import.

The archive (core/archive/) lives in `archive/` in the index folder unless
`[archive] dir` says otherwise; other machines are mirrored into `remote/`
(core/remote/pull.py). Both are as private as the index (0700 / 0600).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from convo_tui.core.annotations import Annotations
from convo_tui.core.archive.files import ArchivedFiles, Machines
from convo_tui.core.archive.records import UNIT
from convo_tui.core.archive.retention import retentions
from convo_tui.core.archive.status import ArchiveStatus, ExportReport, ImportReport, SourceFile, gone_counts, retention_warning
from convo_tui.core.archive.store import Archive
from convo_tui.core.archive.transfer import export, import_file
from convo_tui.core.index.manifest import Manifest
from convo_tui.core.index.publish import CancelLike, is_cancelled
from convo_tui.core.remote.pull import Puller, PullReport, last_pull
from convo_tui.core.settings import Settings

ARCHIVE_FOLDER = "archive"
MIRROR_FOLDER = "remote"
# Seconds an index run waits, after its own files, for the machines still being pulled.
PULL_WAIT = 600.0


class RemotePulls:
    """The configured machines pulled in background threads while local files are indexed."""

    def __init__(self, pullers: list[Puller]):
        self.pullers = pullers
        self.reports: list[PullReport] = []
        self._threads = [
            threading.Thread(target=self._run, args=(p,), daemon=True, name=f"pull-{p.remote.name}") for p in pullers
        ]
        self._lock = threading.Lock()
        for thread in self._threads:
            thread.start()

    def _run(self, puller: Puller) -> None:
        report = puller.run()
        with self._lock:
            self.reports.append(report)

    def join(self, cancel: CancelLike = None, timeout: float = PULL_WAIT) -> list[PullReport]:
        """The pulls' reports once they are done (or cancelled, or past `timeout`)."""
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            while thread.is_alive() and not is_cancelled(cancel) and time.monotonic() < deadline:
                thread.join(0.2)
        with self._lock:
            done = list(self.reports)
        for puller in self.pullers:
            if all(r.machine != puller.remote.name for r in done):
                done.append(
                    PullReport(puller.remote.name, puller.remote.host, ok=False, error=f"still pulling after {timeout:.0f} s")
                )
        return done

    def index_roots(self) -> list[Path]:
        return [root for puller in self.pullers for root in puller.index_roots()]

    def stop(self) -> None:
        """End pulls still running (the run was cancelled): their ssh processes are stopped."""
        for puller in self.pullers:
            puller.stop()
        for thread in self._threads:
            thread.join(10)


class Archiving:
    def __init__(self, settings: Settings, folder: Path, annotations: Annotations):
        self.settings = settings
        self.folder = folder
        self.annotations = annotations
        self.mirror = (folder / MIRROR_FOLDER).absolute()

    @property
    def archive_dir(self) -> Path:
        return (self.settings.archive.dir or self.folder / ARCHIVE_FOLDER).expanduser().absolute()

    def archive(self) -> Archive | None:
        """The archive when it is on (every index run keeps its files in it)."""
        if not self.settings.archive.enabled:
            return None
        cap = self.settings.archive.max_mb * 2**20
        return Archive(self.archive_dir, cap or None)

    def machines(self) -> Machines:
        return Machines(self.mirror, {r.name: dict(r.path_map) for r in self.settings.remotes})

    def files_for_run(self) -> ArchivedFiles:
        files = ArchivedFiles(self.archive(), exclude=self.settings.archive.exclude, machines=self.machines())
        files.start()
        return files

    def start_pulls(self, files: ArchivedFiles) -> RemotePulls | None:
        """Pull every configured machine in the background (None when there are none)."""
        if not self.settings.remotes:
            return None

        def archived(key: str, size: int, mtime_ns: int) -> bool:
            return files.archived_state(key) == (size, mtime_ns)

        return RemotePulls([Puller(remote, self.mirror, archived) for remote in self.settings.remotes])

    def mark_pruned(self, keys: list[str]) -> None:
        archive = self.archive()
        if archive is not None and archive.exists() and keys:
            archive.set_pruned(keys)

    # -- what `sources` and the app show ---------------------------------------------

    def status(self, manifest: Manifest) -> ArchiveStatus:
        archive = self.archive()
        files = [SourceFile(key, fmt, sessions) for key, fmt, sessions in manifest.session_counts()]
        archived = archive.keys(UNIT) if archive is not None else set()
        kept, unkept = gone_counts(files, archived)
        on = archived if archive is not None else None
        warnings = [line for rule in retentions() if (line := retention_warning(rule, files, on)) is not None]
        machines = []
        for remote in self.settings.remotes:
            report, last_ok = last_pull(self.mirror, remote.name)
            if report is None:
                machines.append(f"{remote.name} ({remote.host}): not pulled yet (the next `convo-tui index` pulls it)")
            else:
                machines.append(report.line())
                if not report.ok:
                    since = f" (last refreshed {time.strftime('%Y-%m-%d %H:%M', time.localtime(last_ok))})" if last_ok else ""
                    warnings.append(f"{remote.name}: {report.error}{since}")
        if archive is None:
            return ArchiveStatus(False, str(self.archive_dir), unkept=unkept, machines=machines, warnings=warnings)
        counts = archive.counts()
        status = ArchiveStatus(
            True,
            str(self.archive_dir),
            files=counts.units,
            versions=counts.versions,
            raw_bytes=counts.raw_bytes,
            disk_bytes=counts.disk_bytes,
            cap_bytes=archive.max_bytes or 0,
            only_here=sum(kept.values()),
            only_here_by_source=kept,
            unkept=unkept,
            machines=machines,
            warnings=warnings,
        )
        if status.full:
            warnings.append(
                f"the archive is full ({counts.disk_bytes / 2**20:.0f} MB of {status.cap_bytes / 2**20:.0f} MB): new sessions "
                "are indexed but not archived; raise [archive] max_mb (nothing was deleted)"
            )
        if unkept:
            warnings.append(
                f"{unkept} indexed session{'s' * (unkept != 1)} have no source file and no archived copy "
                "(indexed before the archive): `convo-tui index --rebuild` would drop them"
            )
        return status

    # -- moving the history ------------------------------------------------------------

    def export(self, target: Path) -> ExportReport:
        archive = self.archive() or Archive(self.archive_dir)
        return export(archive, self.annotations, target)

    def import_(self, source: Path) -> ImportReport:
        return import_file(Archive(self.archive_dir), self.annotations, source)
