"""Bring another machine's transcripts here: an incremental mirror over SFTP.

Each `[[remotes]]` entry (core/settings.py) is mirrored into
`<index folder>/remote/<name>/<remote absolute path>` (0700 folders, 0600
files), which the index run then indexes like local files (their sessions
labelled with the machine's name) and the archive keeps like any file read.

Incremental: a file whose size and time match its mirror copy is not read; a
file that grew is checked at the seam (its last mirrored bytes read back and
compared) and only the new bytes are fetched and appended; anything else is
fetched whole into a temporary file and renamed into place. A host that goes
away mid-transfer leaves every finished file and the old copy of the file it
was on (an append is cut back); the next pull goes on from there.

A file the remote deleted (its tool's retention) leaves the mirror only when
the archive holds that very copy: its sessions then live on from the archive.
"""

from __future__ import annotations

import fnmatch
import json
import os
import struct
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from convo_tui.core.errors import ConvoError
from convo_tui.core.remote.sftp import NotThere, RemoteError, RemoteStat, SftpClient, local_path, mirror_name
from convo_tui.core.settings import RemoteSource
from convo_tui.core.sources import MAX_FILE_BYTES

STATE_DIR = ".state"
# Names worth bringing over: transcripts, the tools' databases and their logs, and the
# files read beside transcripts (core/archive/members.py). Nothing else (OpenCode's
# auth.json lives beside its sessions: never pulled).
PULLED_SUFFIXES = (".txt", ".md", ".json", ".jsonl", ".db", ".vscdb", ".db-wal", ".vscdb-wal")
PULLED_NAMES = frozenset({".aider.chat.history.md", ".project_root"})
SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv"})
MAX_FILES = 100_000
MAX_DEPTH = 16
SEAM_BYTES = 4096  # bytes read back at the end of a mirrored copy before appending to it


@dataclass(frozen=True)
class Place:
    """Remote patterns to pull (`*` is one path segment; relative to the remote home),
    and those among them that hold transcripts (the rest are read with them)."""

    pull: tuple[str, ...]
    index: tuple[str, ...]


# The tools' usual places on the remote machine (README "What it reads").
DEFAULT_PLACES = (
    Place((".claude/projects",), (".claude/projects",)),
    Place((".config/claude/projects",), (".config/claude/projects",)),
    Place((".codex/sessions",), (".codex/sessions",)),
    Place((".codex/archived_sessions",), (".codex/archived_sessions",)),
    Place((".gemini/tmp/*/chats", ".gemini/tmp/*/.project_root"), (".gemini/tmp/*/chats",)),
    Place(
        tuple(
            f".local/share/opencode/{p}"
            for p in ("opencode.db", "opencode.db-wal", "storage/session", "storage/message", "storage/part")
        ),
        (".local/share/opencode/opencode.db", ".local/share/opencode/storage/session"),
    ),
    Place((".cursor/projects/*/agent-transcripts",), (".cursor/projects/*/agent-transcripts",)),
)


@dataclass
class PullReport:
    """What one pull did, in numbers, and the one line said about it."""

    machine: str
    host: str
    ok: bool = True
    error: str = ""
    files: int = 0  # remote files seen
    copied: int = 0  # fetched whole
    grown: int = 0  # fetched as an appended tail
    transferred: int = 0  # bytes
    removed: int = 0  # mirror copies dropped: the remote deleted them, the archive keeps them
    kept: int = 0  # deleted remotely but not archived: kept in the mirror
    at: float = 0.0
    seconds: float = 0.0
    roots: list[str] = field(default_factory=list)  # mirrored places to index

    def line(self) -> str:
        if not self.ok:
            return f"{self.machine}: not refreshed: {self.error}"
        return (
            f"{self.machine} ({self.host}): {self.files} files, {self.copied} fetched, {self.grown} grown, "
            f"{self.transferred:,} bytes in {self.seconds:.1f} s"
        )


def places(remote: RemoteSource) -> list[Place]:
    if remote.paths:
        return [Place((path,), (path,)) for path in remote.paths]
    return list(DEFAULT_PLACES)


def machine_folder(mirror: Path, remote: RemoteSource) -> Path:
    return mirror / remote.name


def _absolute(pattern: str, home: str) -> str:
    if pattern == "~" or pattern.startswith("~/"):
        pattern = pattern[2:]
    if pattern.startswith("/"):
        return os.path.normpath(pattern)
    return os.path.normpath(f"{home.rstrip('/')}/{pattern}")


def _pulled(name: str) -> bool:
    return name in PULLED_NAMES or (not name.startswith(".") and name.lower().endswith(PULLED_SUFFIXES))


def _write(handle: BinaryIO, data: bytes) -> None:
    handle.write(data)


def _private_dir(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)


class Puller:
    """One pull of one machine. `archived(local_path, size, mtime_ns)` says whether the
    archive holds that exact copy (so a mirror copy the remote deleted may go)."""

    def __init__(self, remote: RemoteSource, mirror: Path, archived: Callable[[str, int, int], bool]):
        self.remote = remote
        self.mirror = mirror.absolute()
        self.folder = machine_folder(self.mirror, remote)
        self.archived = archived
        self.report = PullReport(remote.name, remote.host)
        self._client: SftpClient | None = None
        self._stopped = False

    def run(self) -> PullReport:
        started = time.monotonic()
        report = self.report
        report.at = time.time()
        try:
            _private_dir(self.mirror)
            _private_dir(self.folder)
            if self._stopped:
                raise RemoteError("stopped")
            with SftpClient(self.remote) as client:
                self._client = client
                if self._stopped:
                    raise RemoteError("stopped")
                home = client.realpath(".")
                for place in places(self.remote):
                    self._pull_place(client, place, home)
        except ConvoError as exc:
            report.ok, report.error = False, str(exc).removeprefix(f"{self.remote.name}: ")
        except OSError as exc:
            report.ok, report.error = False, f"cannot write the mirror ({exc.strerror or exc})"
        except (struct.error, ValueError, IndexError) as exc:  # a reply that is not SFTP: data, never a crash
            report.ok, report.error = False, f"malformed reply from {self.remote.host} ({type(exc).__name__}: {exc})"
        report.seconds = time.monotonic() - started
        report.roots = [str(p) for p in self.index_roots()]
        save_state(self.mirror, report)
        return report

    def stop(self) -> None:
        """Stop a pull from another thread: its ssh is ended and `run` returns."""
        self._stopped = True
        client = self._client
        if client is not None:
            client.abort()

    def index_roots(self) -> list[Path]:
        """The mirrored places that hold transcripts, as they are on this disk now."""
        home = load_home(self.mirror, self.remote.name)
        if home is None:
            return []
        found: list[Path] = []
        for place in places(self.remote):
            for pattern in place.index:
                relative = _absolute(pattern, home).lstrip("/")
                found += sorted(self.folder.glob(relative)) if "*" in relative else [self.folder / relative]
        return [p for p in found if p.exists()]

    # -- one place -------------------------------------------------------------------

    def _pull_place(self, client: SftpClient, place: Place, home: str) -> None:
        save_home(self.mirror, self.remote.name, home)
        for pattern in place.pull:
            absolute = _absolute(pattern, home)
            seen: set[Path] = set()
            roots = self._expand(client, absolute)
            for root, attrs in roots:
                for remote_path, stat in self._walk(client, root, attrs, 0):
                    local = local_path(self.folder, remote_path)
                    if local is None:
                        continue
                    seen.add(local)
                    self.report.files += 1
                    if self.report.files > MAX_FILES:
                        raise RemoteError(f"more than {MAX_FILES:,} files under {absolute}; pull stopped")
                    self._fetch(client, remote_path, stat, local)
            self._forget_deleted(absolute, seen)

    def _expand(self, client: SftpClient, absolute: str) -> list[tuple[str, RemoteStat]]:
        """The existing remote paths a pattern names (`*` matches one segment)."""
        current: list[str] = ["/"]
        for segment in [s for s in absolute.split("/") if s]:
            following: list[str] = []
            for folder in current:
                base = folder.rstrip("/")
                if "*" not in segment and "?" not in segment:
                    following.append(f"{base}/{segment}")
                    continue
                try:
                    entries = client.listdir(folder)
                except NotThere:
                    continue
                for raw, attrs in entries:
                    name = mirror_name(raw)
                    if name is not None and attrs.is_dir and fnmatch.fnmatchcase(name, segment):
                        following.append(f"{base}/{name}")
            current = sorted(following)
        found = []
        for path in current:
            try:
                found.append((path, client.stat(path)))
            except NotThere:
                continue
        return found

    def _walk(self, client: SftpClient, path: str, attrs: RemoteStat, depth: int) -> Iterator[tuple[str, RemoteStat]]:
        if attrs.is_file:
            if _pulled(path.rsplit("/", 1)[-1]):
                yield path, attrs
            return
        if not attrs.is_dir or depth > MAX_DEPTH:
            return
        try:
            entries = sorted(client.listdir(path), key=lambda item: item[0])
        except NotThere:
            return
        for raw, entry in entries:
            name = mirror_name(raw)
            if name is None:
                continue
            child = f"{path.rstrip('/')}/{name}"
            if entry.is_link:  # followed to a file, never to a folder (no loops)
                try:
                    entry = client.stat(child)
                except NotThere:
                    continue
                if not entry.is_file:
                    continue
            if entry.is_dir and (name in SKIP_DIRS or name.startswith(".")):
                continue
            yield from self._walk(client, child, entry, depth + 1)

    # -- one file --------------------------------------------------------------------

    def _fetch(self, client: SftpClient, remote_path: str, stat: RemoteStat, local: Path) -> None:
        if stat.size > MAX_FILE_BYTES:
            return
        try:
            mine = local.stat()
        except OSError:
            mine = None
        if mine is not None and mine.st_size == stat.size and int(mine.st_mtime) == stat.mtime:
            return
        _private_dir(local.parent)
        if mine is not None and 0 < mine.st_size < stat.size and self._same_seam(client, remote_path, local, mine.st_size):
            self._append(client, remote_path, local, mine.st_size, stat)
        else:
            self._copy(client, remote_path, local, stat)
        os.utime(local, ns=(stat.mtime * 1_000_000_000, stat.mtime * 1_000_000_000))

    def _same_seam(self, client: SftpClient, remote_path: str, local: Path, size: int) -> bool:
        """Whether the remote file still begins with our copy (its last bytes compared)."""
        length = min(SEAM_BYTES, size)
        theirs = bytearray()
        client.read(remote_path, size - length, length, theirs.extend)
        with open(local, "rb") as handle:
            handle.seek(size - length)
            return handle.read(length) == bytes(theirs)

    def _append(self, client: SftpClient, remote_path: str, local: Path, size: int, stat: RemoteStat) -> None:
        with open(local, "r+b") as handle:
            handle.seek(size)
            try:
                got = client.read(remote_path, size, stat.size - size, lambda data: _write(handle, data))
                handle.flush()
                os.fsync(handle.fileno())
            except BaseException:
                handle.truncate(size)  # the copy stays what it was: the next pull goes on from here
                raise
        self.report.grown += 1
        self.report.transferred += got

    def _copy(self, client: SftpClient, remote_path: str, local: Path, stat: RemoteStat) -> None:
        part = local.with_name(f".{local.name}.part-{os.getpid()}")
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                got = client.read(remote_path, 0, stat.size, lambda data: _write(handle, data))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(part, local)
        except BaseException:
            part.unlink(missing_ok=True)
            raise
        self.report.copied += 1
        self.report.transferred += got

    def _forget_deleted(self, absolute: str, seen: set[Path]) -> None:
        """Mirror copies of files the remote no longer has, under a pattern listed in full."""
        relative = absolute.lstrip("/")
        roots = sorted(self.folder.glob(relative)) if "*" in relative else [self.folder / relative]
        for root in roots:
            files = [root] if root.is_file() else [p for p in root.rglob("*") if p.is_file() and not p.name.startswith(".")]
            for path in files:
                if path in seen or not _pulled(path.name):
                    continue
                mine = path.stat()
                if self.archived(str(path), mine.st_size, mine.st_mtime_ns):
                    path.unlink()
                    self.report.removed += 1
                else:
                    self.report.kept += 1


# -- what the last pull of each machine found ----------------------------------------


def _state_file(mirror: Path, name: str) -> Path:
    return mirror / STATE_DIR / f"{name}.json"


def _write_json(path: Path, data: dict[str, Any]) -> None:
    _private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    os.replace(tmp, path)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_state(mirror: Path, report: PullReport) -> None:
    state = _read_json(_state_file(mirror, report.machine))
    state["last"] = asdict(report)
    if report.ok:
        state["last_ok"] = report.at
    _write_json(_state_file(mirror, report.machine), state)


def save_home(mirror: Path, name: str, home: str) -> None:
    state = _read_json(_state_file(mirror, name))
    if state.get("home") != home:
        state["home"] = home
        _write_json(_state_file(mirror, name), state)


def load_home(mirror: Path, name: str) -> str | None:
    home = _read_json(_state_file(mirror, name)).get("home")
    return home if isinstance(home, str) and home.startswith("/") else None


def last_pull(mirror: Path, name: str) -> tuple[PullReport | None, float | None]:
    """The last pull's report and when a pull last succeeded."""
    state = _read_json(_state_file(mirror, name))
    last = state.get("last")
    report = None
    if isinstance(last, dict):
        try:
            report = PullReport(**last)
        except TypeError:
            report = None
    ok = state.get("last_ok")
    return report, ok if isinstance(ok, (int, float)) else None
