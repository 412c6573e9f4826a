"""What was indexed from which source file: the memory that makes indexing incremental.

A JSON file in the index folder (owner-only), replaced atomically (temp file +
os.replace) so a crash leaves either the old or the new manifest. An entry is
written only after its sessions are published.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from convo_tui.core.engine import SourceReading

MANIFEST_NAME = "manifest.json"
MANIFEST_VERSION = 1


@dataclass
class FileEntry:
    size: int
    mtime_ns: int
    hash: str
    format: str  # SourceFormat.name ("" for a file that failed to parse)
    parser_version: int
    model: str
    sessions: list[str] = field(default_factory=list)
    generation: int = 0
    error: str | None = None  # the ParseError line, for a file skipped as bad
    unknown: dict[str, int] = field(default_factory=dict)  # parts its reader did not know: "event:x" -> count


def file_hash(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class Manifest:
    def __init__(self, folder: Path):
        self.path = Path(folder) / MANIFEST_NAME
        self.files: dict[str, FileEntry] = {}
        self._dirty = False

    @classmethod
    def load(cls, folder: Path) -> Manifest:
        manifest = cls(folder)
        try:
            data = json.loads(manifest.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return manifest
        except (OSError, ValueError):
            # Unreadable: treat as empty; indexing re-checks every file by hash.
            return manifest
        if not isinstance(data, dict) or data.get("version") != MANIFEST_VERSION:
            return manifest
        for path, raw in (data.get("files") or {}).items():
            try:
                manifest.files[path] = FileEntry(**raw)
            except TypeError:
                continue
        return manifest

    def get(self, path: str) -> FileEntry | None:
        return self.files.get(path)

    def put(self, path: str, entry: FileEntry) -> None:
        self.files[path] = entry
        self._dirty = True

    def remove(self, path: str) -> None:
        if self.files.pop(path, None) is not None:
            self._dirty = True

    def clear(self) -> None:
        self.files.clear()
        self._dirty = True

    def session_owner(self) -> dict[str, str]:
        """session id -> the path that holds it."""
        return {sid: path for path, entry in self.files.items() for sid in entry.sessions}

    def save(self, force: bool = False) -> None:
        if not (self._dirty or force):
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {"version": MANIFEST_VERSION, "files": {p: asdict(e) for p, e in sorted(self.files.items())}}
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            # ASCII escapes: a path that is not valid UTF-8 (surrogate escapes) round-trips.
            json.dump(data, handle, ensure_ascii=True, separators=(",", ":"))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path)
        self._dirty = False


def source_readings(manifest: Manifest, most: int = 3) -> list[SourceReading]:
    """Per format, the manifest's files: read, skipped, and read with unknown parts."""
    from convo_tui.core.sources import format_by_name

    groups: dict[str, list[FileEntry]] = {}
    for entry in manifest.files.values():
        groups.setdefault(entry.format, []).append(entry)
    readings = []
    for name, entries in sorted(groups.items(), key=lambda item: (item[0] == "", item[0])):
        fmt = format_by_name(name) if name else None
        counts: dict[str, int] = {}
        for entry in entries:
            for key, count in (entry.unknown or {}).items():
                counts[key] = counts.get(key, 0) + count
        top = tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:most])
        readings.append(
            SourceReading(
                name=name,
                tool=(fmt.tool or fmt.label) if fmt else (name or "unknown format"),
                files=sum(1 for e in entries if not e.error),
                skipped=sum(1 for e in entries if e.error),
                drifted=sum(1 for e in entries if e.unknown and not e.error),
                unknown=sum(counts.values()),
                top=top,
            )
        )
    return readings
