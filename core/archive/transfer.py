"""`archive export` / `archive import`: the whole history in one compressed file.

The file is a tar stream compressed with zstd (`.tar.zst`) holding:
- `convo-tui-export.json`: what it is (format, version, when, from which machine);
- `archive.sqlite3`: a consistent snapshot of the archive (core/archive/store.py);
- `annotations.json`: the user's own data: titles, descriptions, stars, tags,
  display settings and deletions (core/annotations.py).

Importing merges: versions and chunks already here are kept once, the user's
edits made here win over imported ones, and stars and tags add up, so
importing the same file twice changes nothing the second time. The imported
sessions are then indexed from the archive by the next index run. An export
file is data from elsewhere: its members are checked by name, its archive by
core/archive/merging.py, its annotations field by field.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import socket
import tarfile
import tempfile
import time
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

import zstandard
from convo_tui.core.annotations import SESSION_SETTINGS, Annotation, Annotations, Deletion
from convo_tui.core.archive.status import ExportReport, ImportReport
from convo_tui.core.archive.store import Archive
from convo_tui.core.errors import ConvoError

FORMAT = "convo-tui-export"
VERSION = 1
HEADER = "convo-tui-export.json"
ARCHIVE = "archive.sqlite3"
NOTES = "annotations.json"
MAX_NOTES_BYTES = 256 * 1024 * 1024


def _annotation_json(note: Annotation) -> dict[str, Any]:
    data = asdict(note)
    if note.deleted is not None:
        data["deleted"] = {**asdict(note.deleted), "at": note.deleted.at.isoformat()}
    return data


def _annotation(data: Any) -> Annotation | None:
    """An imported annotation, or None when its fields are not what they must be."""
    if not isinstance(data, dict) or not isinstance(data.get("session_id"), str) or not data["session_id"]:
        return None
    title, description, starred = data.get("title"), data.get("description", ""), data.get("starred", False)
    tags, settings, deleted = data.get("tags", []), data.get("settings", {}), data.get("deleted")
    if not (title is None or isinstance(title, str)) or not isinstance(description, str) or not isinstance(starred, bool):
        return None
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        return None
    if not isinstance(settings, dict) or not all(k in SESSION_SETTINGS and isinstance(v, bool) for k, v in settings.items()):
        return None
    deletion = None
    if isinstance(deleted, dict):
        try:
            size, mtime = deleted.get("size"), deleted.get("mtime_ns")
            deletion = Deletion(
                datetime.fromisoformat(str(deleted["at"])),
                str(deleted.get("path") or ""),
                size if isinstance(size, int) else None,
                mtime if isinstance(mtime, int) else None,
            )
        except (KeyError, ValueError):
            deletion = None
    return Annotation(data["session_id"], title, description, starred, list(tags), dict(settings), deletion)


def export(archive: Archive, annotations: Annotations, target: Path) -> ExportReport:
    """Write the export file at `target` (replaced only once it is complete)."""
    target = target.expanduser().absolute()
    if target.is_dir():
        raise ConvoError(f"{target}: is a folder; give a file name, e.g. {target / 'convo-tui-history.tar.zst'}")
    counts = archive.counts()
    notes = [_annotation_json(n) for n in annotations.all().values()]
    header = {"format": FORMAT, "version": VERSION, "created_at": time.time(), "machine": socket.gethostname()}
    folder = Path(tempfile.mkdtemp(prefix="export-", dir=archive.folder if archive.exists() else None))
    partial = target.with_name(f".{target.name}.{os.getpid()}.part")
    try:
        snapshot = folder / ARCHIVE
        if archive.exists():
            archive.snapshot(snapshot)
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as raw, zstandard.ZstdCompressor(level=3).stream_writer(raw) as packed:
            with tarfile.open(fileobj=packed, mode="w|") as tar:
                _add_bytes(tar, HEADER, json.dumps(header).encode())
                if snapshot.exists():
                    tar.add(snapshot, arcname=ARCHIVE)
                _add_bytes(tar, NOTES, json.dumps(notes, ensure_ascii=False).encode())
            packed.flush(zstandard.FLUSH_FRAME)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(partial, target)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise ConvoError(f"{target}: cannot write the export ({exc.strerror or exc})") from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return ExportReport(str(target), counts.units, counts.versions, len(notes), target.stat().st_size)


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = int(time.time())
    info.mode = 0o600
    tar.addfile(info, io.BytesIO(data))


def import_file(archive: Archive, annotations: Annotations, source: Path) -> ImportReport:
    """Merge an export file into this archive and these annotations."""
    source = source.expanduser().absolute()
    if not source.is_file():
        raise ConvoError(f"{source}: no such file")
    archive.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    folder = Path(tempfile.mkdtemp(prefix="import-", dir=archive.folder))
    header: dict[str, Any] | None = None
    notes: Any = []
    try:
        with (
            open(source, "rb") as raw,
            zstandard.ZstdDecompressor().stream_reader(raw) as unpacked,
            tarfile.open(fileobj=unpacked, mode="r|") as tar,
        ):
            for member in tar:
                if not member.isfile() or member.name not in (HEADER, ARCHIVE, NOTES):
                    continue  # only our three names; anything else is not read
                handle = tar.extractfile(member)
                if handle is None:
                    continue
                if member.name == ARCHIVE:
                    fd = os.open(folder / ARCHIVE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                    with os.fdopen(fd, "wb") as out:
                        while block := handle.read(1 << 20):
                            out.write(block)
                elif member.size > MAX_NOTES_BYTES:
                    raise ConvoError(f"{source}: {member.name} is too large ({member.size:,} bytes)")
                else:
                    data = json.loads(handle.read())
                    if member.name == HEADER:
                        header = data if isinstance(data, dict) else None
                    else:
                        notes = data
        if header is None or header.get("format") != FORMAT:
            raise ConvoError(f"{source}: not a convo-tui export (made by `convo-tui archive export`)")
        if not isinstance(header.get("version"), int) or header["version"] > VERSION:
            raise ConvoError(f"{source}: made by a newer convo-tui (export version {header.get('version')}); upgrade convo-tui")
        merged = archive.merge_from(folder / ARCHIVE) if (folder / ARCHIVE).exists() else None
        changed = 0
        for data in notes if isinstance(notes, list) else []:
            note = _annotation(data)
            if note is not None and annotations.merge(note):
                changed += 1
    except (zstandard.ZstdError, tarfile.TarError, ValueError, EOFError) as exc:
        raise ConvoError(f"{source}: not a readable convo-tui export ({exc})") from None
    except OSError as exc:
        raise ConvoError(f"{source}: cannot import ({exc.strerror or exc})") from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    machine = str(header.get("machine") or "")
    if merged is None:
        return ImportReport(str(source), 0, 0, 0, changed, machine)
    return ImportReport(str(source), merged.files, merged.versions, merged.skipped, changed, machine)
