"""Index stores behind one contract (see base.py): embedded Edge or a Qdrant server."""

from __future__ import annotations

from convo_tui.core.settings import Settings
from convo_tui.core.store.base import Store


def open_store(settings: Settings, *, read_only: bool = False, repair: bool = False, lazy_dense: bool = False) -> Store:
    """The server store when a Qdrant URL is configured, else the Edge folder.

    Raises IndexUnavailable (one line) when the index is held by another
    process, missing in read-only mode, or the server refuses the connection.
    `lazy_dense`: the Edge store loads its dense shard on first need (edge.py).
    """
    if settings.qdrant_url:
        from convo_tui.core.store.qdrant_server import ServerStore, connect_server

        client = connect_server(settings.qdrant_url, settings.qdrant_api_key, allow_insecure=settings.qdrant_allow_insecure)
        return ServerStore(client, read_only=read_only)
    from convo_tui.core.store.edge import EdgeStore

    # repair: an Edge folder that cannot be loaded opens anyway, for `index --rebuild` to drop.
    return EdgeStore(settings.index_dir, read_only=read_only, repair=repair, lazy_dense=lazy_dense and not repair)
