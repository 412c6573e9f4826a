"""The Edge folder's own files: is the index path a folder, is the store there,
do its files have the sizes the store needs. Run at every open, before the
engine maps anything (a truncated file mapped is a crash, not an error).

What needs these checks and what to do about them is core/index/health.py's
business; this module only reads the folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.store.base import DENSE

REBUILD = "`convo-tui index --rebuild`"
SHARD = "shard"
# Qdrant stores dense vectors in chunk files of this many bytes, rounded down
# to whole vectors (32 MiB; measured: 33,553,920 bytes for 384 dimensions).
_CHUNK_BYTES = 32 << 20


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


def _stored_dim(shard: Path) -> int | None:
    try:
        config = json.loads((shard / "edge_config.json").read_text(encoding="utf-8"))
        return int(config["vectors"][DENSE]["size"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _short_vector_files(shard: Path, dim: int) -> list[Path]:
    row = dim * 4
    expected = (_CHUNK_BYTES // row) * row
    short = []
    for chunk in sorted(shard.glob(f"segments/*/vector_storage-{DENSE}/vectors/chunk_*.mmap")):
        try:
            size = chunk.stat().st_size
        except OSError:
            short.append(chunk)
            continue
        if size < expected:
            short.append(chunk)
    return short


def check_files(index_dir: Path, meta: dict[str, Any]) -> list[str]:
    """Problems in the Edge folder's files that only a rebuild fixes."""
    shard = index_dir / SHARD
    if not (shard / "edge_config.json").is_file():
        return []
    problems = []
    dim = _stored_dim(shard)
    recorded = meta.get("dim")
    if dim is None:
        problems.append(f"{shard / 'edge_config.json'} is unreadable")
    elif recorded is not None and recorded != dim:
        problems.append(f"meta.json records {recorded}-dimension vectors but the store holds {dim}")
    if dim is not None:
        short = _short_vector_files(shard, dim)
        if short:
            problems.append(f"{len(short)} vector file(s) are cut short ({short[0]})")
    return problems
