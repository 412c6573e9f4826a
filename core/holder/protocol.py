"""The holder's wire format: one JSON object a line, each way, versioned.

Request:  {"v": 2, "op": "search", "args": {...}}
Replies:  {"v": 2, "ok": RESULT}               the answer (last line)
          {"v": 2, "error": "one line", "kind": "ConvoError"}
          {"v": 2, "progress": {...}}          index progress, before the answer
          {"v": 2, "busy": true}               heartbeat while a request runs

Heartbeats let a client tell a holder that is working (a model load, an index
run) from one that stopped answering. Kept free of heavy imports: a client
loads this module and nothing of the engine.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

# 2: operations are named after the Engine's methods (core/holder/ops.py).
VERSION = 2
SOCKET_NAME = "holder.sock"
# Seconds between heartbeats while a request runs.
HEARTBEAT = 1.0
# Seconds a client waits for any line from the holder before giving up on it.
DEFAULT_TIMEOUT = 15.0
TIMEOUT_ENV = "CONVO_TUI_HOLDER_TIMEOUT"
# sockaddr_un holds 108 bytes on Linux, 104 on macOS.
_MAX_SOCKET_PATH = 100


class ProtocolError(ValueError):
    """A line that is not a request or reply of this protocol."""


def supported() -> bool:
    """Unix domain sockets with file permissions: Linux and macOS.

    On Windows the standard would be a named pipe (\\\\.\\pipe\\convo-tui-<hash>)
    with a user-only DACL; until then a second process gets the lock message.
    """
    return sys.platform != "win32"


def socket_path(index_dir: Path) -> Path:
    """`<index>/holder.sock`, or a short private path when that is too long to bind."""
    path = Path(index_dir).absolute() / SOCKET_NAME
    if len(os.fsencode(str(path))) <= _MAX_SOCKET_PATH:
        return path
    name = f"{hashlib.sha256(os.fsencode(str(path))).hexdigest()[:24]}.sock"
    # The per-user runtime folder, else the temp folder, else /tmp: the first short enough to bind.
    roots = [os.environ.get("XDG_RUNTIME_DIR", ""), tempfile.gettempdir(), "/tmp"]
    candidates = [Path(root) / f"convo-tui-{os.getuid()}" / name for root in roots if root]
    return next((c for c in candidates if len(os.fsencode(str(c))) <= _MAX_SOCKET_PATH), candidates[-1])


def in_shared_folder(path: Path) -> bool:
    """A socket under XDG_RUNTIME_DIR or the temp folder (`convo-tui-<uid>/`), not in the index folder."""
    return path.name != SOCKET_NAME


def timeout() -> float:
    raw = os.environ.get(TIMEOUT_ENV, "")
    try:
        value = float(raw) if raw else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT


def encode(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str) + "\n").encode("utf-8")


def decode(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"not JSON ({exc})") from None
    if not isinstance(message, dict):
        raise ProtocolError("not a JSON object")
    return message


def request(op: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"v": VERSION, "op": op, "args": args or {}}


def check_request(message: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(op, args) of a valid request; ProtocolError names what is wrong."""
    version = message.get("v")
    if version != VERSION:
        raise ProtocolError(f"protocol version {version!r} is not supported (this holder speaks {VERSION})")
    op = message.get("op")
    if not isinstance(op, str) or not op:
        raise ProtocolError(f"op must be a name, got {op!r}")
    args = message.get("args", {})
    if not isinstance(args, dict):
        raise ProtocolError("args must be an object")
    return str(op), args


def ok(result: Any) -> dict[str, Any]:
    return {"v": VERSION, "ok": result}


def error(text: str, kind: str = "ConvoError") -> dict[str, Any]:
    return {"v": VERSION, "error": " ".join(str(text).split()), "kind": kind}
