"""The Edge folder's own files, checked against what the store's metadata says they hold.

Qdrant Edge maps its files and trusts them: a payload page cut short is a raw
"Gridstore IO error ... out of bounds" in whichever search first reads past
the cut (or a Rust panic), while every count still says 100%. So before the
engine maps anything, each segment's storage is checked the way search will
read it (core/store/segment_files.py says what is checked in each file).

`check_files` runs the size checks at every open (a few stats); `index` and
`sources` ask for the deep pass. Each problem is one line naming the file;
core/index/health.py says what to do about them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.store import space
from convo_tui.core.store.base import DENSE
from convo_tui.core.store.segment_files import check_segment, children, sample_reads

REBUILD = "`convo-tui index --rebuild`"
SHARD = "shard"  # every point: payload and BM25 vector
DENSE_SHARD = "dense"  # the points with a dense vector (core/store/edge.py)


def check_index_path(path: Path) -> None:
    """IndexUnavailable when the index path exists but is not a folder."""
    if path.exists() and not path.is_dir():
        raise IndexUnavailable(
            f"the index path {path} is a file, not a folder: move it away, or point --index-dir "
            "(or CONVO_TUI_INDEX_DIR) at a folder"
        )


def store_missing(path: Path) -> str | None:
    """The message for an index folder whose store vanished while its records stayed."""
    if any((path / name).is_file() for name in ("meta.json", "manifest.sqlite3", "manifest.json")):
        return (
            f"the index at {path} has lost its store ({SHARD}/ is missing or incomplete); "
            f"run `convo-tui index` to re-index, or {REBUILD}"
        )
    return None


def damaged(index_dir: Path | str, what: str) -> str:
    """The one line for a damaged index, wherever the damage shows."""
    return f"the index at {index_dir} is damaged: {what}; run {REBUILD} (your transcripts are not affected)"


def _stored_dim(shard: Path) -> int | None:
    try:
        config = json.loads((shard / "edge_config.json").read_text(encoding="utf-8"))
        return int(config["vectors"][DENSE]["size"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def holds_dense(shard: Path) -> bool:
    """A main shard made by an older convo-tui, with the dense vectors in it."""
    return _stored_dim(shard) is not None


def check_files(index_dir: Path, meta: dict[str, Any], *, deep: bool = False) -> list[str]:
    """Problems in the Edge folders' files that only a rebuild fixes, one line each."""
    shard, dense = index_dir / SHARD, index_dir / DENSE_SHARD
    if not (shard / "edge_config.json").is_file():
        return []
    if not (dense / "edge_config.json").is_file():
        return [f"{dense / 'edge_config.json'} is missing"]
    problems = []
    dim = _stored_dim(dense)
    recorded = meta.get("dim")
    if dim is None:
        problems.append(f"{dense / 'edge_config.json'} is unreadable")
    elif recorded is not None and recorded != dim:
        problems.append(f"meta.json records {recorded}-dimension vectors but the store holds {dim}")
    for folder, size in ((shard, None), (dense, dim)):
        for segment in sorted(p for p in children(folder / "segments") if p.is_dir()):
            problems.extend(check_segment(segment, size, deep=deep))
        if deep:
            problems.extend(sample_reads(folder))
    return problems


def missing_before_load(index_dir: Path) -> list[str]:
    """Files of an optimized segment that Edge would silently make anew, empty,
    when it loads the shard (a zero-filled `matrix.dat` finds nothing by meaning;
    an empty id mapping loses every point): checked before it gets the chance.
    So is the dense shard, made before the main one."""
    if not (index_dir / DENSE_SHARD / "edge_config.json").is_file():
        return [f"{index_dir / DENSE_SHARD / 'edge_config.json'} is missing"]
    problems: list[str] = []
    segments = (p for name in (SHARD, DENSE_SHARD) for p in children(index_dir / name / "segments"))
    for segment in sorted(p for p in segments if p.is_dir()):
        if not (segment / "id_tracker.versions").exists():
            continue  # the appendable segment: Edge makes nothing anew there
        dense = segment / f"vector_storage-{DENSE}"
        wanted = [segment / "id_tracker.mappings"]
        if (dense / "quantized.config.json").exists() or (segment / f"vector_index-{DENSE}").exists():
            wanted.append(dense / "matrix.dat")
        problems.extend(f"{path} is missing" for path in wanted if not path.exists())
    return problems


def refuse_unloadable(index_dir: Path) -> None:
    """IndexUnavailable, with the way out, for an index folder Edge must not
    load: the older one-shard layout, or files Edge would make anew, empty."""
    if holds_dense(index_dir / SHARD):
        raise IndexUnavailable(
            f"the index at {index_dir} was written by an older convo-tui (one shard for BM25 and "
            f"dense vectors); run {REBUILD} (your transcripts are not affected)"
        )
    missing = missing_before_load(index_dir)
    if missing:
        raise IndexUnavailable(damaged(index_dir, missing[0]))


def private_dir(path: Path) -> None:
    """The index folder, made or narrowed to mode 0700 (transcripts are private)."""
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(path, 0o700)
    except OSError as exc:
        if space.is_disk_full(exc):
            raise space.disk_full(path.parent, "create the index folder") from None
        raise IndexUnavailable(f"index folder {path}: {exc.strerror or exc}") from None
