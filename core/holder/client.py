"""Asking a holder: one request per connection, answered in one JSON line.

Imports nothing of the engine (no Qdrant, no ONNX): a command served by a
holder starts as fast as `convo-tui --help`.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from convo_tui.core import errors
from convo_tui.core.errors import ConvoError, IndexUnavailable
from convo_tui.core.holder import peer, protocol


class NoHolder(Exception):
    """Nobody listens on the socket: none was ever there, or its holder died (stale file)."""


class HolderGone(IndexUnavailable):
    """The holder closed the connection before answering (it died or stopped)."""


class HolderSilent(IndexUnavailable):
    """The holder sent nothing, not even a heartbeat, for the whole timeout."""


class Cancelled(Exception):
    """The caller's cancel event was set: the connection was closed (the holder stops the run)."""


def _as_error(kind: str, text: str) -> ConvoError:
    """The holder's error as the same class here, when it takes one message."""
    found = getattr(errors, kind, None)
    if isinstance(found, type) and issubclass(found, ConvoError):
        try:
            return found(text)
        except TypeError:
            pass
    return ConvoError(text)


def call(
    path: Path,
    op: str,
    args: dict[str, Any] | None = None,
    *,
    timeout: float | None = None,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
    cancel: threading.Event | None = None,
) -> Any:
    """Send one request and return the holder's answer.

    NoHolder when nobody listens (safe to take over); HolderGone when the
    connection drops mid-request; HolderSilent when the holder stops answering;
    the holder's own errors come back as the same ConvoError subclass.
    """
    wait = timeout if timeout is not None else protocol.timeout()
    if protocol.in_shared_folder(path):
        peer.check_folder(path.parent)  # made by another user, or open to all: refused (NotPrivate)
    peer.check_socket_file(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(wait)
        try:
            sock.connect(str(path))
        except (FileNotFoundError, ConnectionRefusedError, NotADirectoryError):
            raise NoHolder(str(path)) from None
        except TimeoutError:
            raise HolderSilent(f"the index holder at {path} does not accept connections (no answer in {wait:g} s)") from None
        except OSError as exc:
            raise NoHolder(f"{path}: {exc.strerror or exc}") from None
        uid = peer.peer_uid(sock)
        if uid is not None and uid != os.getuid():
            raise peer.NotPrivate(f"the process listening at {path} runs as uid {uid}, not you: refusing to talk to it")
        try:
            sock.sendall(protocol.encode(protocol.request(op, args)))
        except OSError:
            raise HolderGone(f"the index holder at {path} closed the connection") from None
        return _read_answer(sock, path, wait, on_progress, cancel)
    finally:
        sock.close()


def _read_answer(
    sock: socket.socket,
    path: Path,
    wait: float,
    on_progress: Callable[[dict[str, Any]], None] | None,
    cancel: threading.Event | None = None,
) -> Any:
    with sock.makefile("rb") as reader:
        while True:
            if cancel is not None and cancel.is_set():
                raise Cancelled()
            try:
                line = reader.readline()
            except TimeoutError:
                raise HolderSilent(f"the index holder at {path} stopped answering (nothing for {wait:g} s)") from None
            except OSError:
                line = b""
            if not line.endswith(b"\n"):
                raise HolderGone(f"the index holder at {path} went away before answering")
            try:
                reply = protocol.decode(line)
            except protocol.ProtocolError as exc:
                raise IndexUnavailable(f"the index holder at {path} sent a bad reply: {exc}") from None
            if reply.get("v") != protocol.VERSION:
                raise IndexUnavailable(
                    f"the index holder at {path} speaks protocol {reply.get('v')!r}, this convo-tui {protocol.VERSION}: "
                    "close the other convo-tui and try again"
                )
            if "ok" in reply:
                return reply["ok"]
            if "error" in reply:
                raise _as_error(str(reply.get("kind", "")), str(reply["error"]))
            if "progress" in reply and on_progress is not None:
                on_progress(reply["progress"])
            # heartbeats ("busy") only prove the holder is alive
