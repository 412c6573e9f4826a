"""Reach the index from any process: ask its holder, or become the holder.

`attach` returns a `RemoteEngine` when a holder answers on the index's
socket, else opens the `Library` here and serves it to the others until it
closes. Either way the caller holds an `Engine` (core/engine.py).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from convo_tui.core.engine import Engine
from convo_tui.core.errors import ConvoError, IndexBusy
from convo_tui.core.holder import client, protocol
from convo_tui.core.holder.release import release
from convo_tui.core.holder.remote import RemoteEngine
from convo_tui.core.settings import Settings

# Between two tries while another process holds the lock but its socket is not up yet.
_POLL = 0.05
# Written by the first `index` run; a read-only command on a built index still opens
# it writable, so that the edits it serves to others can be written.
_META_NAME = "meta.json"


def attach(
    settings: Settings,
    *,
    read_only: bool = False,
    allow_mismatch: bool = False,
    on_wait: Callable[[str], None] | None = None,
) -> Engine:
    """The holder's engine if one answers, else the Library opened (and served) here.
    `on_wait` is told once, in one line, when another process holds the lock but
    does not answer yet (it is opening the index, or closing it)."""
    if settings.qdrant_url or not protocol.supported():
        return open_local(settings, read_only=read_only, allow_mismatch=allow_mismatch, serve=False)
    path = protocol.socket_path(settings.index_dir)
    deadline: float | None = None
    while True:
        try:
            hello = client.call(path, "hello", {"release": release()})
            return RemoteEngine(
                settings,
                path,
                hello,
                read_only=read_only,
                take_over=lambda: attach(settings, read_only=read_only, allow_mismatch=allow_mismatch),
            )
        except (client.NoHolder, client.HolderGone):
            pass  # none, or one that stopped while we asked (its command ended): the lock decides next
        built = is_built(settings.index_dir)
        # A reader opens a built index writable, to serve the others' edits, unless it may not write there.
        writable = may_write(settings.index_dir)
        try:
            return open_local(
                settings,
                read_only=read_only and (not built or not writable),
                allow_mismatch=allow_mismatch,
                reading=read_only,
                serve=writable,
            )
        except IndexBusy as busy:
            # Its holder is still opening the index (or closing it): wait for its socket,
            # or for the lock to come free, at most one timeout.
            now = time.monotonic()
            if deadline is None and on_wait is not None:
                who = f"pid {busy.pid}" if busy.pid else "another process"
                on_wait(f"waiting for {who}, which holds the index and is not answering yet (at most {protocol.timeout():g} s)")
            deadline = deadline or now + protocol.timeout()
            if now >= deadline:
                raise
            time.sleep(_POLL)


def is_built(index_dir: Path) -> bool:
    """Whether a first `index` run has written this embedded index."""
    return (Path(index_dir) / _META_NAME).is_file()


def may_write(folder: Path) -> bool:
    """Whether this process may write the index folder, or create it: a first
    `index` run (no folder yet) must serve the app opened while it runs."""
    for place in (folder, *folder.absolute().parents):
        if place.exists():
            return os.access(place, os.W_OK)
    return False


def open_local(
    settings: Settings,
    *,
    read_only: bool = False,
    allow_mismatch: bool = False,
    reading: bool = False,
    serve: bool = True,
    must_serve: bool = False,
    idle_exit: float | None = None,
    on_idle: Callable[[str], None] | None = None,
) -> Engine:
    """Open the Library in this process; with `serve` (an embedded index on a
    system with Unix sockets) it answers the other processes until it closes.
    A server that cannot start only costs the others the lock's message,
    unless `must_serve` (`convo-tui serve`), where it is the error.
    `idle_exit`, `on_idle`: see HolderServer."""
    from convo_tui.core.library import Library

    library = Library.open(settings, read_only=read_only, allow_mismatch=allow_mismatch, reading=reading)
    if serve and not settings.qdrant_url and protocol.supported():
        from convo_tui.core.holder.server import HolderServer

        try:
            server = HolderServer(library, settings.index_dir, idle_exit=idle_exit, on_idle=on_idle).start()
        except ConvoError:
            if must_serve:
                library.close()
                raise
        else:
            library.on_close(server.stop)
    return library


def open_when_free(
    settings: Settings,
    *,
    must_serve: bool = False,
    idle_exit: float | None = None,
    on_idle: Callable[[str], None] | None = None,
) -> Engine:
    """`open_local`, waiting at most one timeout while another process holds the
    lock: the holder keep_warm starts (cli/keep_warm.py) comes up while the
    command that started it ends, which keeps the lock to its very end
    (core/store/parking.py)."""
    deadline = time.monotonic() + protocol.timeout()
    while True:
        try:
            return open_local(settings, must_serve=must_serve, idle_exit=idle_exit, on_idle=on_idle)
        except IndexBusy:
            if time.monotonic() >= deadline:
                raise
            time.sleep(_POLL)


@contextmanager
def open_engine(
    settings: Settings,
    *,
    read_only: bool = False,
    allow_mismatch: bool = False,
    on_wait: Callable[[str], None] | None = None,
) -> Iterator[Engine]:
    """`attach` as a context manager: closes what it opened (a remote has nothing to close)."""
    engine = attach(settings, read_only=read_only, allow_mismatch=allow_mismatch, on_wait=on_wait)
    try:
        yield engine
    finally:
        engine.close()


def has_index(settings: Settings) -> bool:
    """Whether an index was built (a server collection is assumed to be)."""
    return bool(settings.qdrant_url) or (Path(settings.index_dir) / "shard").is_dir()


def readiness(settings: Settings) -> str | None:
    """Two lines for `convo-tui sources`: how much of the index is searchable,
    by keyword and by meaning, and the model (None when there is no index yet).
    Asked of the holder when one runs (the app, `serve`, an `index` run)."""
    if not has_index(settings):
        return None
    try:
        with open_engine(settings, read_only=True) as engine:
            return engine.readiness(checked=True).describe()
    except ConvoError as exc:
        return f"index: {exc}"
