"""One Edge segment's files checked the way search will read them (layouts read
from qdrant-edge-py 0.9.0's files and Qdrant's sources):

- payload and BM25 storage, and the payload indexes' maps (Gridstore:
  `config.json`, `page_N.dat`, `bitmask.dat`, `gaps.dat`, `tracker.dat`,
  `tracker_journal.dat`): every page has the size `config.json` gives, the
  bitmask and gap files cover exactly those pages, and (deep) every value the
  tracker and its journal point at lies inside an existing page;
- dense vectors: the appendable segment's chunks hold every vector its
  `status.dat` counts; an optimized segment's `matrix.dat` is there and holds
  whole vectors, as many as the segment indexed, and its quantized copy and
  deletion flags have the matching sizes;
- flag files (deletions, the payload indexes' null flags): `status.dat` whole,
  the flags long enough for the count it holds;
- an optimized segment's BM25 inverted index as long as its config says, and
  its id tracker's versions and deletion flags one per point;
- (deep) a sampled read of every file, each page included: its first and last
  block, so a file the disk cannot read is named here, not mid-search.
"""

from __future__ import annotations

import json
import math
import os
import re
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from convo_tui.core.store.base import DENSE

_PAGE = re.compile(r"page_(\d+)\.dat")
# Gridstore: the tracker starts with a u32 (slots in use), then 16-byte slots
# (u32 some/none, u32 page, u32 block offset, u32 length); its journal is
# entries of [u32 length][u32 CRC32C][records of u32 point offset + a slot].
_SLOT = 16
_RECORD = 4 + _SLOT
_GAP_BYTES = 6  # a region's gaps: three u16
_SAMPLE = 4096  # bytes read at each end of a file in the deep pass
# An optimized segment's files: a 4-byte header, then the data.
_MATRIX_HEADER = 4


def children(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _u64(path: Path) -> int | None:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(8)
    except OSError:
        return None
    return struct.unpack("<Q", raw)[0] if len(raw) == 8 else None


# -- one segment ------------------------------------------------------------


def _named(segment: Path, *names: str) -> dict[str, list[Path]]:
    """Every file under `segment` with one of these names, sorted, from one walk of
    its folders (two `rglob`s walked them twice: a cold search checks every segment)."""
    found: dict[str, list[Path]] = {name: [] for name in names}
    for folder, _dirs, files in os.walk(segment):
        for name in names:
            if name in files:
                found[name].append(Path(folder) / name)
    return {name: sorted(paths) for name, paths in found.items()}


def check_segment(segment: Path, dim: int | None, *, deep: bool) -> list[str]:
    problems: list[str] = []
    named = _named(segment, "config.json", "status.dat")
    for config in named["config.json"]:
        data = _json(config)
        if data is not None and "page_size_bytes" in data:
            problems.extend(_check_gridstore(config.parent, data, deep=deep))
        elif data is not None and "chunk_size_bytes" in data:
            problems.extend(_check_chunks(config.parent, data))
        elif data is None and config.parent.name in ("payload_storage", "store", "vectors"):
            problems.append(f"{config} is unreadable")
    for status in named["status.dat"]:
        if (status.parent / "flags_a.dat").exists() or (status.parent / "flags_b.dat").exists():
            problems.extend(_check_flags(status.parent))
    dense = segment / f"vector_storage-{DENSE}"
    optimized = (segment / "id_tracker.versions").exists()
    if optimized:
        problems.extend(_check_optimized(segment, dense, dim))
    inverted = next(iter(sorted(segment.glob("vector_index-*/inverted_index_config.json"))), None)
    if inverted is not None:
        problems.extend(_check_inverted(inverted))
    return problems


def _check_gridstore(folder: Path, config: dict[str, Any], *, deep: bool) -> list[str]:
    """Payload or BM25 storage: pages of the configured size, covered by the bitmask and gaps."""
    try:
        page_size = int(config["page_size_bytes"])
        block_size = int(config["block_size_bytes"])
        region_blocks = int(config["region_size_blocks"])
    except (KeyError, TypeError, ValueError):
        return [f"{folder / 'config.json'} is unreadable"]
    if page_size <= 0 or block_size <= 0 or region_blocks <= 0 or page_size % block_size:
        return [f"{folder / 'config.json'} holds impossible sizes"]
    pages = 0
    while (folder / f"page_{pages}.dat").exists():
        pages += 1
    numbers = sorted(int(m[1]) for m in (_PAGE.fullmatch(p.name) for p in children(folder)) if m)
    if numbers and numbers[-1] >= pages:
        return [f"{folder / f'page_{numbers[-1]}.dat'} is there but page_{pages}.dat before it is missing"]
    for number in range(pages):
        page = folder / f"page_{number}.dat"
        size = _size(page)
        if size != page_size:
            return [f"{page} is {_bytes(size)}, its storage's pages are {page_size:,} bytes"]
    per_page = page_size // block_size // 8
    bitmask = _size(folder / "bitmask.dat")
    if bitmask is None or bitmask % per_page or bitmask // per_page != pages:
        return [f"{folder / 'bitmask.dat'} is {_bytes(bitmask)}, {pages} page(s) need {pages * per_page:,} bytes"]
    gaps = _size(folder / "gaps.dat")
    regions = bitmask * 8 // region_blocks
    if gaps is None or gaps < regions * _GAP_BYTES:
        return [f"{folder / 'gaps.dat'} is {_bytes(gaps)}, {regions} region(s) need {regions * _GAP_BYTES:,} bytes"]
    tracker = folder / "tracker.dat"
    if not tracker.exists():
        return [f"{tracker} is missing"]
    if deep:
        append_only = str(config.get("mode", "mutable")) != "mutable"
        return _check_pointers(folder, pages, page_size, 1 if append_only else block_size)
    return []


def _check_pointers(folder: Path, pages: int, page_size: int, unit: int) -> list[str]:
    """Every value the tracker points at, its journal replayed as Edge replays
    it at open, lies inside a page."""
    import numpy as np

    tracker = folder / "tracker.dat"
    try:
        raw = tracker.read_bytes()
    except OSError as exc:
        return [f"{tracker} cannot be read ({exc.strerror or exc})"]
    if len(raw) < 4:
        return [f"{tracker} is {_bytes(len(raw))}, too short for its header"]
    journal = _journal_records(folder / "tracker_journal.dat")
    used = struct.unpack_from("<I", raw)[0]
    room = (len(raw) - 4) // _SLOT
    if used > room:
        if not journal:
            return [f"{tracker} is {_bytes(len(raw))} but counts {used:,} values ({4 + used * _SLOT:,} bytes)"]
        used = room  # a torn header the journal's replay rewrites
    slots = np.frombuffer(raw, dtype="<u4", count=used * 4, offset=4).reshape(used, 4).copy()
    if journal:
        records = np.asarray(journal, dtype="<u4").reshape(-1, 5)
        top = int(records[:, 0].max()) + 1
        if top > len(slots):
            slots = np.concatenate([slots, np.zeros((top - len(slots), 4), dtype="<u4")])
        slots[records[:, 0]] = records[:, 1:]  # in order: a later write of an offset wins
    kind, page = slots[:, 0], slots[:, 1]
    offset, length = slots[:, 2].astype("<u8"), slots[:, 3].astype("<u8")
    if bool((kind > 1).any()):
        return [f"{tracker} holds unreadable entries"]
    outside = (kind == 1) & ((page >= pages) | (offset * unit + length > page_size))
    if bool(outside.any()):
        return [f"{tracker} points past the end of its pages ({int(outside.sum()):,} value(s))"]
    return []


def _journal_records(journal: Path) -> list[int]:
    """The records (point offset, then a slot's four words) of the tracker
    journal's whole entries, as Edge replays them; empty without a journal."""
    try:
        raw = journal.read_bytes()
    except OSError:
        return []
    out: list[int] = []
    at = 0
    while at + 8 <= len(raw):
        length = struct.unpack_from("<I", raw, at)[0]
        if length == 0 or length % _RECORD or at + 8 + length > len(raw):
            break  # an entry a crash cut short: Edge stops there too
        for record in range(at + 8, at + 8 + length, _RECORD):
            out.extend(struct.unpack_from("<5I", raw, record))
        at += 8 + length
    return out


def _check_chunks(folder: Path, config: dict[str, Any]) -> list[str]:
    """The appendable segment's dense vectors: whole chunks for every vector counted."""
    try:
        chunk_bytes = int(config["chunk_size_bytes"])
        chunk_vectors = int(config["chunk_size_vectors"])
    except (KeyError, TypeError, ValueError):
        return [f"{folder / 'config.json'} is unreadable"]
    count = _u64(folder / "status.dat")
    if count is None:
        return [f"{folder / 'status.dat'} is missing or cut short"]
    needed = math.ceil(count / chunk_vectors) if chunk_vectors > 0 else 0
    for number in range(needed):
        chunk = folder / f"chunk_{number}.mmap"
        size = _size(chunk)
        if size is None or size < chunk_bytes:
            return [
                f"vector file {chunk} is cut short ({_bytes(size)}; {count:,} vectors need {needed} of {chunk_bytes:,} bytes)"
            ]
    return []


def _check_flags(folder: Path) -> list[str]:
    """Deletion or null flags: a whole status, and flags for every item it counts."""
    status = folder / "status.dat"
    size = _size(status)
    if size is None or size < 16:
        return [f"{status} is {_bytes(size)}, a flags status is 16 bytes"]
    raw = status.read_bytes()[:16]
    count, legacy = struct.unpack("<QQ", raw)
    flags = folder / ("flags_b.dat" if legacy else "flags_a.dat")
    have = _size(flags)
    if have is None or have < math.ceil(count / 8):
        return [f"{flags} is {_bytes(have)}, {count:,} flags need {math.ceil(count / 8):,} bytes"]
    return []


def _check_optimized(segment: Path, dense: Path, dim: int | None) -> list[str]:
    """An optimized segment: its id tracker, dense vectors (in a shard that has
    them: `dim`), their deletion flags and quantized copy, each as long as the
    segment's point count needs."""
    expected = _segment_points(segment, dense)
    if expected is not None:
        for name, need in (("id_tracker.versions", expected * 8), ("id_tracker.deleted", math.ceil(expected / 64) * 8)):
            have = _size(segment / name)
            if have is None or have < need:
                return [f"{segment / name} is {_bytes(have)}, {expected:,} points need {need:,} bytes"]
    if not dim:
        return []
    row = dim * 4
    matrix = dense / "matrix.dat"
    size = _size(matrix)
    if size is None:
        return [f"{matrix} is missing"] if (dense / "deleted.dat").exists() or expected else []
    vectors = (size - _MATRIX_HEADER) // row if size >= _MATRIX_HEADER else 0
    if size < _MATRIX_HEADER or (size - _MATRIX_HEADER) % row:
        return [f"{matrix} is {_bytes(size)}, not a whole number of {dim}-dimension vectors"]
    if expected is not None and vectors < expected:
        return [f"{matrix} holds {vectors:,} vectors, its segment {expected:,}"]
    deleted = _size(dense / "deleted.dat")
    need = 8 + math.ceil(vectors / 64) * 8
    if deleted is None or deleted < need:
        return [f"{dense / 'deleted.dat'} is {_bytes(deleted)}, {vectors:,} vectors need {need:,} bytes"]
    quantized = dense / "quantized.data"
    config = _json(dense / "quantized.config.json")
    if config is not None and "scalar" in (config.get("quantization_config") or {}):
        need = vectors * (dim + 4)  # int8 per dimension, and an f32 offset
        have = _size(quantized)
        if have != need:
            return [f"{quantized} is {_bytes(have)}, {vectors:,} quantized vectors are {need:,} bytes"]
    return []


def _segment_points(segment: Path, dense: Path) -> int | None:
    """How many points an optimized segment holds at least, as its indexes recorded
    it: the most any index counts (not every point has a dense vector: phase 2
    embeds each text once, so the dense count alone can be a fraction)."""
    hnsw = _json(segment / f"vector_index-{DENSE}" / "hnsw_config.json")
    quantized = _json(dense / "quantized.config.json")
    inverted = _json(segment / "vector_index-bm25" / "inverted_index_config.json")
    counts = [
        (hnsw or {}).get("indexed_vector_count"),
        ((quantized or {}).get("vector_parameters") or {}).get("count"),
        (inverted or {}).get("vector_count"),
    ]
    found = [int(c) for c in counts if isinstance(c, int)]
    return max(found) if found else None


def _check_inverted(config_path: Path) -> list[str]:
    """An optimized segment's BM25 postings: at least the bytes its config counts."""
    config = _json(config_path)
    data = config_path.parent / "inverted_index.dat"
    if config is None:
        return [f"{config_path} is unreadable"]
    total = config.get("total_sparse_size")
    size = _size(data)
    if isinstance(total, int) and (size is None or size < total):
        return [f"{data} is {_bytes(size)}, its postings need {total:,} bytes"]
    return []


# -- reading every file -------------------------------------------------------


def _files(shard: Path) -> Iterator[Path]:
    for root, _dirs, names in os.walk(shard):
        for name in sorted(names):
            yield Path(root) / name


def sample_reads(shard: Path) -> list[str]:
    """Read the first and last block of every file (each page and chunk is a file)."""
    for path in _files(shard):
        try:
            with open(path, "rb", buffering=0) as handle:
                size = os.fstat(handle.fileno()).st_size
                os.pread(handle.fileno(), _SAMPLE, 0)
                if size > _SAMPLE:
                    os.pread(handle.fileno(), _SAMPLE, size - _SAMPLE)
        except OSError as exc:
            return [f"{path} cannot be read ({exc.strerror or exc})"]
    return []


def _bytes(size: int | None) -> str:
    return "missing" if size is None else f"{size:,} bytes"
