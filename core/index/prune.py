"""Forgetting the sessions of source files that are gone (`convo-tui prune`)."""

from __future__ import annotations

import os

from convo_tui.core.index.manifest import Manifest
from convo_tui.core.store.base import Cond, Filter, Store


def prune(store: Store, manifest: Manifest) -> int:
    """Forget sessions whose source file is gone. Returns how many were removed."""
    removed = 0
    for path in manifest.paths():
        if os.path.exists(path):
            continue
        entry = manifest.get(path)
        manifest.remove(path)
        if entry is None:
            continue
        # A session another (existing) file now holds is not the vanished file's to drop.
        ids = tuple(sid for sid in entry.sessions if manifest.owner_of(sid) is None)
        if ids:
            store.delete(Filter(must=(Cond("session_id", any=ids),)))
            removed += len(ids)
    store.flush()
    manifest.save()
    return removed
