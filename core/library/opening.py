"""Opening an index: the store, its metadata and its health, checked before use,
and where the files beside it live (manifest_dir)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.index.health import check as check_health
from convo_tui.core.settings import Settings, default_index_dir
from convo_tui.core.store import open_store
from convo_tui.core.store.base import Store

# Bump when points or payloads change shape: older indexes are rebuilt, never misread.
SCHEMA_VERSION = 1
REBUILD_HINT = "run `convo-tui index --rebuild` to re-index"


def check_meta(meta: dict[str, Any], where: str) -> None:
    """IndexUnavailable (with the way out) when the index is not readable as asked.

    Another model in the settings is not an error: searches use the index's
    own model until `index` switches it (core/index/model_switch.py)."""
    if not meta:
        return
    schema = meta.get("schema")
    if not isinstance(schema, int) or schema < SCHEMA_VERSION:
        raise IndexUnavailable(
            f"the index at {where} was written by an older convo-tui (schema {schema}, this version uses {SCHEMA_VERSION}); {REBUILD_HINT}"
        )
    if schema > SCHEMA_VERSION:
        raise IndexUnavailable(
            f"the index at {where} was written by a newer convo-tui (schema {schema}, this version reads {SCHEMA_VERSION}); upgrade convo-tui or {REBUILD_HINT}"
        )


def open_checked(
    settings: Settings, *, read_only: bool, allow_mismatch: bool, reading: bool
) -> tuple[Store, IndexUnavailable | None]:
    """The store, and why it may not be read (only with `allow_mismatch`, which
    `index --rebuild` uses: it drops what it cannot read). Without it, any such
    problem closes the store and raises IndexUnavailable."""
    # A reader loads the dense shard when a search first needs it: a keyword search, or a
    # listing, never pays for its load (a third of the open at 10k messages, fully embedded).
    store = open_store(settings, read_only=read_only, repair=allow_mismatch, lazy_dense=read_only or reading)
    try:
        if store.damaged is not None:  # an unloadable Edge shard: only a rebuild may go on
            raise store.damaged
        check_meta(store.read_meta(), str(settings.qdrant_url or settings.index_dir))
        if not settings.qdrant_url:  # core/index/health.py: damaged files, sessions the store lost
            check_health(store, settings.index_dir, settings.index_dir, read_only=read_only or reading)
    except IndexUnavailable as exc:
        if not allow_mismatch:
            store.close()
            raise
        return store, exc
    return store, None


def manifest_dir(settings: Settings) -> Path:
    """Where the manifest, the user's edits and the vector cache live: the index
    folder, or for a server collection a folder beside this machine's settings."""
    if not settings.qdrant_url:
        return settings.index_dir
    folder = default_index_dir() / "server"
    for private in (folder.parent, folder):  # it lists every transcript path: owner only
        private.mkdir(parents=True, exist_ok=True, mode=0o700)
        private.chmod(0o700)
    return folder
