"""Build the benchmark's indexes with the project's own Indexer.

The same files and the same embedders go into both stores (Qdrant Edge, and
qdrant-client's local mode through ServerStore), so the search comparison
differs only in the engine.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from convo_tui.core.errors import ParseError
from convo_tui.core.index.manifest import Manifest
from convo_tui.core.index.points import session_points
from convo_tui.core.index.publish import Indexer, IndexReport
from convo_tui.core.sources import parse_path
from convo_tui.core.store.base import Point, Store


@dataclass
class Built:
    store: Store
    report: IndexReport
    folder: Path


def open_edge(folder: Path) -> Store:
    from convo_tui.core.store.edge import EdgeStore

    return EdgeStore(folder)


def open_local_mode(folder: Path) -> Store:
    """qdrant-client's local mode, what most Qdrant users start with.

    In memory rather than `path=`: searches are the same (local mode holds every
    point in memory either way) and the build skips its per-write SQLite pickling.
    """
    from convo_tui.core.store.qdrant_server import ServerStore
    from qdrant_client import QdrantClient

    folder.mkdir(parents=True, exist_ok=True)
    return ServerStore(QdrantClient(location=":memory:"))


def build(store: Store, folder: Path, files: Sequence[Path], dense, sparse) -> Built:
    """Index `files` into `store`; the manifest lives in `folder`."""
    manifest = Manifest.load(folder)
    report = Indexer(store, manifest, dense, sparse).run(files)
    write_model_meta(store, dense)
    return Built(store, report, folder)


def bulk_build(store: Store, folder: Path, files: Sequence[Path], dense, sparse) -> Built:
    """The same points the Indexer writes, loaded in bulk and published at once.

    For the local-mode peer only: the Indexer publishes session by session
    (a filtered set_payload and delete each), which local mode answers by
    scanning every point in Python, so a 10k build would take minutes of a
    quick run. Searches see exactly the points an Indexer build holds.
    """
    started = time.perf_counter()
    store.ensure(dense.dim)
    pending = []
    for path in files:
        try:
            sessions = parse_path(path)
        except ParseError:
            continue
        for session in sessions:
            pending += session_points(session, 1, dense.tokenizer)
    texts = list(dict.fromkeys(p.text for p in pending if p.text))
    vectors = dict(zip(texts, zip(dense.embed_documents(texts), sparse.embed_documents(texts), strict=False), strict=False))
    points = [
        Point(f"{p.key}@1", *(vectors[p.text] if p.text else (None, None)), {**p.payload, "visible": True}) for p in pending
    ]
    for start in range(0, len(points), 512):
        store.upsert(points[start : start + 512])
    store.optimize()
    store.flush()
    write_model_meta(store, dense)
    report = IndexReport(
        added=len({p.payload["session_id"] for p in pending}), points=len(points), seconds=time.perf_counter() - started
    )
    return Built(store, report, folder)


def reindex(built: Built, files: Sequence[Path], dense, sparse) -> IndexReport:
    return Indexer(built.store, Manifest.load(built.folder), dense, sparse).run(files)


def write_model_meta(store: Store, dense) -> None:
    """Record the model as Library.index does, so the app opens the index as its own."""
    from convo_tui.core.embed.sparse import SparseEmbedder
    from convo_tui.core.library import SCHEMA_VERSION

    if not store.read_meta():
        store.write_meta({"schema": SCHEMA_VERSION, "model": dense.name, "dim": dense.dim, "sparse": SparseEmbedder.NAME})


def embedded_texts(files: Sequence[Path], tokenizer) -> list[str]:
    """The distinct texts indexing embeds for these files (what raw fastembed gets too)."""
    texts: dict[str, None] = {}
    for path in files:
        try:
            sessions = parse_path(path)
        except ParseError:
            continue  # the indexer skips it too (and the report counts it)
        for session in sessions:
            for point in session_points(session, 0, tokenizer):
                if point.text:
                    texts.setdefault(point.text, None)
    return list(texts)


def folder_bytes(folder: Path) -> int:
    """Bytes actually allocated on disk (Edge preallocates sparse files; size would overstate)."""
    total = 0
    for root, _dirs, names in os.walk(folder):
        for name in names:
            with contextlib.suppress(OSError):
                total += os.stat(os.path.join(root, name)).st_blocks * 512
    return total
