"""One process at a time per index folder, with a message that names the holder.

The holder serves every other process over a socket (core/holder/); this lock
decides who is the holder, and IndexBusy is what a process that lost the race
sees (core/holder/access.py then asks the holder instead).

Qdrant Edge refuses a second open of a shard with a raw WAL error ("Can't init
WAL: WouldBlock"), from another process and from the same one alike, and it
has no read-only mode that is safe while another process writes (a shard
created without a WAL even loads twice, silently: two writers would corrupt
it). So we take
an advisory `flock` on `<index>/lock` before Edge sees the folder, write our
pid and command line into it, and turn contention into IndexUnavailable.
The kernel drops the lock when the holder dies, so it never goes stale.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from pathlib import Path

from convo_tui.core.errors import IndexBusy, IndexUnavailable

LOCK_NAME = "lock"


def holder_pid(lock_path: Path) -> int | None:
    """The pid written in the lock file, if any."""
    try:
        first = lock_path.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0].strip()
    except OSError:
        return None
    return int(first) if first.isdigit() else None


def command_line() -> str:
    """This process as a person would name it: `convo-tui serve --no-watch`, not
    the interpreter's path and the script's (the lock file and the holder's hello carry it)."""
    try:
        raw = Path("/proc/self/cmdline").read_bytes()
        parts = [p.decode("utf-8", "replace") for p in raw.split(b"\0") if p]
    except OSError:
        parts = [sys.executable, *sys.argv]
    text = " ".join(short_command(parts))
    return text if len(text) <= 200 else text[:197] + "..."


def short_command(parts: list[str]) -> list[str]:
    """`python3 /venv/bin/convo-tui index` -> `convo-tui index`; `python -m convo_tui.cli.main` -> `convo-tui`."""
    rest = list(parts)
    interpreter = ""
    while rest and os.path.basename(rest[0]).startswith("python"):
        interpreter = os.path.basename(rest.pop(0))
    if len(rest) >= 2 and rest[0] == "-m":
        module = rest[1]
        return ["convo-tui" if module.startswith("convo_tui") else module, *rest[2:]]
    if rest and rest[0].startswith("-"):  # `python -c ...`: the interpreter is the program
        return [interpreter or "python", *rest]
    if rest:
        return [os.path.basename(rest[0]), *rest[1:]]
    return [interpreter] if interpreter else parts[:1]


def describe_holder(lock_path: Path) -> str:
    """'pid 123 (convo-tui index)' from the lock file, or a vaguer phrase."""
    try:
        lines = lock_path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    pid = lines[0].strip() if lines else ""
    command = lines[1].strip() if len(lines) > 1 else ""
    if not pid.isdigit():
        return "another process"
    if int(pid) == os.getpid():
        return f"this process (pid {pid}) through another open handle"
    return f"pid {pid} ({command})" if command else f"pid {pid}"


class IndexLock:
    """An exclusive, non-blocking lock on an index folder (held until release)."""

    def __init__(self, folder: Path):
        self.path = folder / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            holder = describe_holder(self.path)
            raise IndexBusy(
                f"index {self.path.parent} is in use by {holder}; wait for it to finish or close it, then try again",
                holder_pid(self.path),
            ) from None
        except OSError as exc:
            os.close(fd)
            raise IndexUnavailable(f"index {self.path.parent}: cannot lock ({exc.strerror})") from None
        # Who holds it is only a courtesy for the message above: a full disk must not stop a reader.
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n{command_line()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
        os.close(self._fd)  # closing drops the flock
        self._fd = None
