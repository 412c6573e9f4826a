"""The indexer's view of source files with the archive behind it (core/index/source_files.py).

- A file on disk is read as before; just before it is parsed, its bytes (and
  its members, core/archive/members.py) are stored in the archive, so the
  archive holds exactly what was indexed, and the manifest's hash is the hash
  of the bytes archived.
- A file whose source is gone (the tool deleted it, the disk was replaced)
  but that the archive holds is offered to the indexer as if it were there:
  its state and hash are the archived version's, so an index that has it
  skips it without reading; a rebuild, a repair or a new parser version
  reads it from a private staging copy (the unit and its members laid out as
  they were), and its sessions keep their original path.
- Sessions from another machine (core/remote/) get that machine's name
  (`meta["machine"]`), and their working folder mapped as the settings say.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from convo_tui.core.archive.members import Part, members, unit_part
from convo_tui.core.archive.records import MEMBER, RAW, SQLITE_DUMP, UNIT, ArchiveFull, Entry, SourceState, Version
from convo_tui.core.archive.sqlite_dump import dump, restore
from convo_tui.core.archive.store import Archive
from convo_tui.core.errors import ConvoError
from convo_tui.core.index.manifest import file_hash
from convo_tui.core.index.reading import Relabel
from convo_tui.core.index.source_files import FileStat, source_key

if TYPE_CHECKING:
    from convo_tui.core.model import Session
    from convo_tui.core.sources import SourceFormat

STAGING = "staging"
MACHINE = "machine"


@dataclass(frozen=True)
class ArchivedStat:
    st_size: int
    st_mtime_ns: int


@dataclass(frozen=True)
class Machines:
    """Where other machines' files are mirrored, and each machine's folder mapping."""

    root: Path | None = None
    path_maps: dict[str, dict[str, str]] = field(default_factory=dict)

    def machine_of(self, key: str) -> str:
        if self.root is None:
            return ""
        # Keys are absolute, normalised paths: a prefix test gives relative_to's answer
        # at a fraction of its cost (a run asks it of every archived file: 42k at 1M).
        root = self.root.as_posix().rstrip("/") + "/"
        return key[len(root) :].split("/", 1)[0] if key.startswith(root) else ""

    def map_folder(self, machine: str, folder: str | None) -> str | None:
        """A remote working folder as this machine knows it (the longest matching prefix wins)."""
        if not folder:
            return folder
        for remote, local in sorted(self.path_maps.get(machine, {}).items(), key=lambda item: -len(item[0])):
            prefix = remote.rstrip("/")
            if folder == prefix or folder.startswith(prefix + "/"):
                return local.rstrip("/") + folder[len(prefix) :]
        return folder


def label_session(session: Session, *, staged: str, original: str, machine: str, folders: dict[str, str]) -> None:
    """A session read from a file as the file's own: the archive's staging copy
    (`staged`) named as the `original`, and another machine's name and folder
    mapping (Machines.map_folder) put on it."""
    if staged:
        session.path = original if session.path == staged else session.path.replace(staged, original)
        session.warnings = [w.replace(staged, original) for w in session.warnings]
    if machine:
        session.meta[MACHINE] = machine
        session.cwd = Machines(path_maps={machine: folders}).map_folder(machine, session.cwd)


def excluded(key: str, patterns: list[str]) -> bool:
    """A path the settings keep out of the archive: it matches a pattern, or lies under a listed folder."""
    for pattern in patterns:
        pattern = os.path.expanduser(pattern)
        if fnmatch.fnmatchcase(key, pattern) or key.startswith(pattern.rstrip("/") + "/"):
            return True
    return False


def staged_path(root: Path, key: str) -> Path:
    """Where an archived absolute path is put back under `root`; never outside it (a key is data)."""
    parts = key.split("/")[1:]
    if not key.startswith("/") or any(part in ("..", ".", "") for part in parts) or "\0" in key:
        raise ConvoError(f"archived path {key!r} is not a plain absolute path")
    return root.joinpath(*parts)


class ArchivedFiles:
    """FileAccess over the disk and the archive for one index run (one thread)."""

    def __init__(self, archive: Archive | None, *, exclude: list[str] | None = None, machines: Machines | None = None):
        self.archive = archive
        self.exclude = list(exclude or [])
        self.machines = machines or Machines()
        self.notes: list[str] = []
        self.refused = 0  # versions the full archive could not take this run
        self._restored: dict[str, Entry] = {}
        self._broken = False
        self._staging = archive.folder / STAGING if archive is not None else None

    # -- planning a run ------------------------------------------------------------

    def start(self) -> None:
        """Clear staging copies a killed run left behind."""
        if self._staging is not None:
            shutil.rmtree(self._staging, ignore_errors=True)

    def held(self) -> AbstractContextManager[None]:
        """The run's writes to the archive on one connection (Archive.held)."""
        return self.archive.held() if self.archive is not None else nullcontext()

    def restorable(self, roots: list[Path] | None, *, remote: bool) -> list[Path]:
        """Archived transcripts whose source is gone (and that `prune` did not drop), under
        `roots` when given; those of other machines (`remote`) or of this one."""
        if self.archive is None:
            return []
        # Each archived path's flags first, its newest version only for a source that is
        # gone (decoding all of them took 0.9 s of every run at 42,000 files).
        try:
            heads = self.archive.heads(UNIT)
        except ConvoError as exc:
            self._broke(exc)
            return []
        wanted = [source_key(root) for root in roots] if roots is not None else None
        gone: list[str] = []
        for key, pruned, machine in sorted(heads):
            if pruned or bool(self.machines.machine_of(key) or machine) != remote:
                continue
            if wanted is not None and not any(key == root or key.startswith(root.rstrip("/") + "/") for root in wanted):
                continue
            if not os.path.lexists(key):
                gone.append(key)
        try:
            entries = {entry.key: entry for entry in self.archive.entries_of(gone)}
        except ConvoError as exc:
            self._broke(exc)
            return []
        found: list[Path] = []
        for key in gone:
            if key in entries:
                self._restored[key] = entries[key]
                found.append(Path(key))
        return found

    def archived_state(self, key: str) -> tuple[int, int] | None:
        """(size, mtime) of the source a gone file's newest archived version came from."""
        entry = self._restored.get(key)
        if entry is None and self.archive is not None and not self._broken:
            try:
                entry = self.archive.entry(key)
            except ConvoError:
                entry = None
        return (entry.latest.source.size, entry.latest.source.mtime_ns) if entry else None

    def file_state(self, path: str) -> tuple[int | None, int | None]:
        """(size, mtime) of a file on disk, else of its archived source, else (None, None)."""
        try:
            stat = os.stat(path)
        except OSError:
            return self.archived_state(path) or (None, None)
        return stat.st_size, stat.st_mtime_ns

    # -- FileAccess ------------------------------------------------------------------

    def key(self, path: Path) -> str:
        return source_key(path)

    def stat(self, path: Path) -> FileStat:
        entry = self._restored.get(source_key(path))
        if entry is not None:
            return ArchivedStat(entry.latest.source.size, entry.latest.source.mtime_ns)
        return path.stat()

    def hash(self, path: Path) -> str:
        entry = self._restored.get(source_key(path))
        return entry.latest.source.hash if entry is not None else file_hash(path)

    @contextmanager
    def opened(self, path: Path) -> Iterator[Path]:
        entry = self._restored.get(source_key(path))
        if entry is None or self.archive is None or self._staging is None:
            yield path
            return
        self._staging.mkdir(parents=True, exist_ok=True, mode=0o700)
        root = Path(tempfile.mkdtemp(prefix="restore-", dir=self._staging))
        try:
            yield self._put_back(root, entry)
        finally:
            shutil.rmtree(root, ignore_errors=True)

    def keep(self, path: Path, readable: Path, fmt: SourceFormat | None) -> str:
        key = source_key(path)
        entry = self._restored.get(key)
        if entry is not None:
            return entry.latest.source.hash
        if self.archive is None or self._broken or fmt is None or excluded(key, self.exclude):
            return file_hash(readable)
        try:
            return self._keep(key, readable, fmt.name)
        except ArchiveFull as exc:
            self.refused += 1
            if self.refused == 1:
                self.notes.append(f"{exc}: new and changed transcripts are indexed but not archived; nothing was deleted")
        except (OSError, ConvoError) as exc:
            self.notes.append(f"{path}: not archived ({exc})")
        except Exception as exc:  # an archive bug must not cost the file its indexing
            self.notes.append(f"{path}: not archived ({type(exc).__name__}: {exc})")
        return file_hash(readable)

    def relabel(self, path: Path, readable: Path) -> Relabel:
        key = source_key(path)
        entry = self._restored.get(key)
        staged = str(readable) if entry is not None else ""
        machine = entry.machine if entry is not None and entry.machine else self.machines.machine_of(key)
        return partial(
            label_session, staged=staged, original=key, machine=machine, folders=self.machines.path_maps.get(machine, {})
        )

    # -- archiving ----------------------------------------------------------------------

    def _broke(self, exc: ConvoError) -> None:
        if not self._broken:
            self._broken = True
            self.notes.append(f"archive unavailable this run: {exc}")

    def _keep(self, key: str, path: Path, fmt: str) -> str:
        assert self.archive is not None
        kept = [pair for pair in (self._keep_member(part) for part in members(fmt, path)) if pair is not None]
        part = unit_part(fmt, path)
        machine = self.machines.machine_of(key)
        if part.encoding == RAW:
            version = self.archive.put_file(key, path, role=UNIT, fmt=fmt, machine=machine, members=kept)
            return version.source.hash
        stat = path.stat()
        prev = self.archive.unchanged(key, stat.st_size, stat.st_mtime_ns)
        if prev is not None and prev.members == tuple(kept):
            return prev.source.hash
        source = SourceState(stat.st_size, stat.st_mtime_ns, file_hash(path))
        with self._dumped(part) as rows:
            self.archive.put_file(
                key, rows, role=UNIT, fmt=fmt, machine=machine, encoding=SQLITE_DUMP, source=source, members=kept
            )
        return source.hash

    def _keep_member(self, part: Part) -> tuple[str, int] | None:
        """A member stored (or found unchanged); None when it cannot be read: the unit is kept without it."""
        assert self.archive is not None
        key = source_key(part.path)
        try:
            stat = part.path.stat()
            prev = self.archive.unchanged(key, stat.st_size, stat.st_mtime_ns)
            if prev is not None:
                return key, prev.seq
            if part.encoding == RAW:
                version = self.archive.put_file(key, part.path, role=MEMBER)
            else:
                source = SourceState(stat.st_size, stat.st_mtime_ns, "")
                with self._dumped(part) as rows:
                    version = self.archive.put_file(key, rows, role=MEMBER, encoding=SQLITE_DUMP, source=source)
        except (OSError, ConvoError):
            return None
        return key, version.seq

    @contextmanager
    def _dumped(self, part: Part) -> Iterator[Path]:
        assert self._staging is not None and part.tables is not None
        self._staging.mkdir(parents=True, exist_ok=True, mode=0o700)
        folder = Path(tempfile.mkdtemp(prefix="dump-", dir=self._staging))
        try:
            rows = folder / "rows.jsonl"
            dump(part.path, part.tables, rows, folder)
            yield rows
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    # -- restoring ---------------------------------------------------------------------

    def _put_back(self, root: Path, entry: Entry) -> Path:
        """The unit and its members under `root`, at their original paths, with their original times."""
        assert self.archive is not None
        target = staged_path(root, entry.key)
        self._write(entry.latest, entry.encoding, target, root)
        for key, seq in entry.latest.members:
            version = self.archive.version(key, seq)
            member = self.archive.entry(key)
            if version is None or member is None:
                continue
            try:
                self._write(version, member.encoding, staged_path(root, key), root)
            except (OSError, ConvoError) as exc:
                self.notes.append(f"{entry.key}: its companion {key} could not be restored ({exc})")
        return target

    def _write(self, version: Version, encoding: str, target: Path, root: Path) -> None:
        assert self.archive is not None
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if encoding == SQLITE_DUMP:
            rows = Path(tempfile.mkstemp(prefix="rows-", dir=root)[1])
            rows.unlink()
            self.archive.write_to(version, rows)
            with open(rows, encoding="utf-8") as lines:
                restore(iter(lines), target)
            rows.unlink()
        else:
            self.archive.write_to(version, target)
        os.utime(target, ns=(version.source.mtime_ns, version.source.mtime_ns))
