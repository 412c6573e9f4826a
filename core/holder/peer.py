"""The holder's socket is ours alone: who may bind it, who is on the other end.

The socket lives in the 0700 index folder, or, when that path is too long to
bind, in `convo-tui-<uid>/` under XDG_RUNTIME_DIR or the temp folder, which
another user could have made first, open to all, with a listener of theirs in
it. So that shared folder is created 0700 and, before either end uses it, must
be a real folder (not a link) that this user owns and nobody else may enter;
the socket is 0600; the holder answers only peers of its own uid and a client
talks only to a holder of its own uid (SO_PEERCRED on Linux, LOCAL_PEERCRED on
macOS). Kept free of heavy imports: a client loads it.
"""

from __future__ import annotations

import os
import socket
import stat
import struct
import sys
from pathlib import Path

from convo_tui.core.errors import IndexUnavailable

# macOS <sys/un.h>: SOL_LOCAL, LOCAL_PEERCRED; struct xucred starts with u_int version, uid_t uid.
_SOL_LOCAL = 0
_LOCAL_PEERCRED = 0x001
_XUCRED_SIZE = 76


class NotPrivate(IndexUnavailable):
    """The socket's folder, or the process at the other end, is not this user's."""


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end of a Unix socket; None where the
    system cannot tell (then the 0700 folder and 0600 socket are the guard)."""
    if sys.platform.startswith("linux") and hasattr(socket, "SO_PEERCRED"):
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _pid, uid, _gid = struct.unpack("3i", raw)
        return int(uid)
    if sys.platform == "darwin":
        raw = sock.getsockopt(_SOL_LOCAL, _LOCAL_PEERCRED, _XUCRED_SIZE)
        _version, uid = struct.unpack_from("2I", raw)
        return int(uid)
    return None


def is_ours(sock: socket.socket) -> bool:
    uid = peer_uid(sock)
    return uid is None or uid == os.getuid()


def check_folder(folder: Path) -> None:
    """NotPrivate unless `folder` is a folder (not a link) of this user that
    nobody else can enter or write."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return  # nothing there yet: nobody can be listening in it
    except OSError as exc:
        raise NotPrivate(f"the socket folder {folder}: {exc.strerror or exc}") from None
    fix = "remove it (or set XDG_RUNTIME_DIR to a folder of yours) and try again"
    if not stat.S_ISDIR(info.st_mode):
        raise NotPrivate(f"the socket folder {folder} is not a folder (a link or a file): refusing to use it; {fix}")
    if info.st_uid != os.getuid():
        raise NotPrivate(f"the socket folder {folder} belongs to uid {info.st_uid}, not you: refusing to use it; {fix}")
    if info.st_mode & 0o077:
        raise NotPrivate(
            f"the socket folder {folder} is open to others (mode {stat.S_IMODE(info.st_mode):04o}): refusing to use it; {fix}"
        )


def make_folder(folder: Path) -> None:
    """Create the shared socket folder 0700 (its parent must exist) and check it."""
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise NotPrivate(f"cannot create the socket folder {folder}: {exc.strerror or exc}") from None
    else:
        os.chmod(folder, 0o700)  # ours, just made: a umask may have taken more than it gives
    check_folder(folder)


def check_socket_file(path: Path) -> None:
    """NotPrivate if a socket file is there and another user owns it."""
    try:
        info = os.lstat(path)
    except OSError:
        return
    if info.st_uid != os.getuid():
        raise NotPrivate(f"the socket {path} belongs to uid {info.st_uid}, not you: refusing to talk to it")
