"""A small SFTP (version 3) client spoken over the system's `ssh`.

Remote sources are read through OpenSSH's client, so the user's own
`~/.ssh/config`, keys, agent, known hosts and jump hosts work as they do for
`ssh HOST`. The client runs `ssh -s HOST sftp` with a fixed argument list
(never a shell, the host checked by the settings: core/settings.py) and
speaks SFTP over its pipes: listing folders with sizes and times, and reading
files from an offset, so a grown transcript costs only its new bytes. SFTP
needs no shell, `find` or `stat` on the remote side (macOS and Linux alike)
and no parsing of command output. Only what the protocol needs is here:
OPENDIR/READDIR, STAT/LSTAT, REALPATH, OPEN/READ/CLOSE
(draft-ietf-secsh-filexfer-02).

Everything the remote says is data: names are checked before they become
local paths (core/remote/pull.py), packets are bounded, and a host that
stops answering for `timeout` seconds is dropped with one line.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import stat as stat_module
import struct
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from convo_tui.core.errors import ConvoError
from convo_tui.core.settings import RemoteSource

# Packet types (draft-ietf-secsh-filexfer-02, section 3).
INIT, VERSION, OPEN, CLOSE, READ = 1, 2, 3, 4, 5
LSTAT, OPENDIR, READDIR, REALPATH, STAT = 7, 11, 12, 16, 17
STATUS, HANDLE, DATA, NAME, ATTRS = 101, 102, 103, 104, 105
OK, EOF, NO_SUCH_FILE, PERMISSION_DENIED = 0, 1, 2, 3
FLAG_SIZE, FLAG_UIDGID, FLAG_PERMISSIONS, FLAG_TIMES, FLAG_EXTENDED = 0x1, 0x2, 0x4, 0x8, 0x80000000
OPEN_READ = 0x1

READ_SIZE = 32 * 1024  # what every SFTP server answers in one DATA packet
READS_IN_FLIGHT = 16  # pipelined reads: one round trip per 512 KB
MAX_PACKET = 4 * 1024 * 1024
CONNECT_SECONDS = 10
TIMEOUT = 30.0


class RemoteError(ConvoError):
    """One line about a remote host: it cannot be reached, it went away, it refused."""


class NotThere(RemoteError):
    """The remote path does not exist (or may not be read)."""


@dataclass(frozen=True)
class RemoteStat:
    size: int
    mtime: int  # seconds: SFTP v3 carries no more
    mode: int

    @property
    def is_dir(self) -> bool:
        return stat_module.S_ISDIR(self.mode)

    @property
    def is_file(self) -> bool:
        return stat_module.S_ISREG(self.mode)

    @property
    def is_link(self) -> bool:
        return stat_module.S_ISLNK(self.mode)


def ssh_argv(remote: RemoteSource, ssh: str) -> list[str]:
    """The fixed command line: batch mode (never a prompt), no forwarding, short connect timeout."""
    argv = [
        ssh,
        "-T",
        "-x",
        "-a",
        "-o",
        "BatchMode=yes",
        "-o",
        f"ConnectTimeout={CONNECT_SECONDS}",
        "-o",
        "ServerAliveInterval=10",
        "-o",
        "ServerAliveCountMax=3",
        "-o",
        "ClearAllForwardings=yes",
        "-o",
        "PermitLocalCommand=no",
    ]
    if remote.ssh_config is not None:
        argv += ["-F", str(remote.ssh_config)]
    if remote.port is not None:
        argv += ["-p", str(remote.port)]
    if remote.identity_file is not None:
        argv += ["-i", str(remote.identity_file), "-o", "IdentitiesOnly=yes"]
    return [*argv, "-s", "--", remote.host, "sftp"]


def _string(data: bytes, pos: int) -> tuple[bytes, int]:
    (length,) = struct.unpack_from(">I", data, pos)
    pos += 4
    if pos + length > len(data):
        raise RemoteError("malformed SFTP reply (a string runs past the packet)")
    return data[pos : pos + length], pos + length


def _attrs(data: bytes, pos: int) -> tuple[RemoteStat, int]:
    (flags,) = struct.unpack_from(">I", data, pos)
    pos += 4
    size = mode = mtime = 0
    if flags & FLAG_SIZE:
        (size,) = struct.unpack_from(">Q", data, pos)
        pos += 8
    if flags & FLAG_UIDGID:
        pos += 8
    if flags & FLAG_PERMISSIONS:
        (mode,) = struct.unpack_from(">I", data, pos)
        pos += 4
    if flags & FLAG_TIMES:
        (_atime, mtime) = struct.unpack_from(">II", data, pos)
        pos += 8
    if flags & FLAG_EXTENDED:
        (count,) = struct.unpack_from(">I", data, pos)
        pos += 4
        for _ in range(min(count, 1000) * 2):
            _value, pos = _string(data, pos)
    return RemoteStat(size, mtime, mode), pos


def _pack_string(value: bytes) -> bytes:
    return struct.pack(">I", len(value)) + value


class SftpClient:
    """One SFTP session over one `ssh` process. Not thread-safe: one puller uses it."""

    def __init__(self, remote: RemoteSource, *, timeout: float = TIMEOUT):
        ssh = shutil.which("ssh")
        if ssh is None:
            raise RemoteError(f"{remote.name}: cannot reach {remote.host}: no `ssh` command here (install OpenSSH's client)")
        self.remote = remote
        self.timeout = timeout
        self._next_id = 0
        self._buffer = bytearray()
        self._errors: deque[bytes] = deque(maxlen=20)
        try:
            self._proc = subprocess.Popen(
                ssh_argv(remote, ssh),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                start_new_session=True,  # a Ctrl-C in the terminal is ours to handle, not ssh's
            )
        except OSError as exc:
            raise RemoteError(f"{remote.name}: cannot start ssh ({exc.strerror or exc})") from None
        assert self._proc.stdin is not None and self._proc.stdout is not None and self._proc.stderr is not None
        self._stdin, self._stdout = self._proc.stdin, self._proc.stdout
        self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_thread.start()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._stdout, selectors.EVENT_READ)
        try:
            self._send(INIT, struct.pack(">I", 3), with_id=False)
            kind, _payload = self._receive()
        except RemoteError as exc:
            reason = self._last_words() if self._proc.poll() is not None else str(exc).split(": ", 1)[-1]
            self.close()
            raise RemoteError(f"{remote.name}: cannot reach {remote.host}: {reason}") from None
        if kind != VERSION:
            self.close()
            raise RemoteError(f"{remote.name}: {remote.host} did not start SFTP (reply type {kind})")

    # -- transport -----------------------------------------------------------------

    def _drain_stderr(self) -> None:
        assert self._proc.stderr is not None
        for line in self._proc.stderr:
            if line.strip():
                self._errors.append(line.strip())

    def _last_words(self) -> str:
        """Why the connection ended, in one line (ssh's own last words when it said any)."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=2)
        self._stderr_thread.join(timeout=1)
        said = self._errors[-1].decode("utf-8", "replace")[:200] if self._errors else ""
        return said or (
            f"ssh exited with status {self._proc.returncode}" if self._proc.returncode is not None else "connection lost"
        )

    def _gone(self, doing: str) -> RemoteError:
        return RemoteError(f"{self.remote.name}: {self.remote.host} {doing}: {self._last_words()}")

    def _send(self, kind: int, payload: bytes, *, with_id: bool = True) -> int:
        request = 0
        if with_id:
            self._next_id = (self._next_id + 1) & 0xFFFFFFFF
            request = self._next_id
            payload = struct.pack(">I", request) + payload
        try:
            self._stdin.write(struct.pack(">IB", len(payload) + 1, kind) + payload)
        except (BrokenPipeError, OSError):
            raise self._gone("closed the connection") from None
        return request

    def _fill(self, wanted: int) -> None:
        deadline = time.monotonic() + self.timeout
        while len(self._buffer) < wanted:
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(timeout=left):
                raise RemoteError(f"{self.remote.name}: {self.remote.host} stopped answering (no reply for {self.timeout:.0f} s)")
            chunk = os.read(self._stdout.fileno(), 1 << 16)
            if not chunk:
                raise self._gone("closed the connection")
            self._buffer += chunk

    def _receive(self) -> tuple[int, bytes]:
        self._fill(5)
        length, kind = struct.unpack_from(">IB", self._buffer, 0)
        if length < 1 or length > MAX_PACKET:
            raise RemoteError(f"{self.remote.name}: malformed SFTP reply (packet of {length} bytes)")
        self._fill(4 + length)
        payload = bytes(self._buffer[5 : 4 + length])
        del self._buffer[: 4 + length]
        return kind, payload

    def _reply(self, request: int) -> tuple[int, bytes]:
        kind, payload = self._receive()
        if len(payload) < 4 or struct.unpack_from(">I", payload, 0)[0] != request:
            raise RemoteError(f"{self.remote.name}: SFTP reply out of order")
        return kind, payload[4:]

    def _status(self, payload: bytes, path: str) -> int:
        (code,) = struct.unpack_from(">I", payload, 0)
        if code in (NO_SUCH_FILE, PERMISSION_DENIED):
            raise NotThere(
                f"{self.remote.name}:{path}: {'no such file or folder' if code == NO_SUCH_FILE else 'permission denied'}"
            )
        if code not in (OK, EOF):
            message, _ = _string(payload, 4)
            raise RemoteError(f"{self.remote.name}:{path}: {message.decode('utf-8', 'replace')[:200] or f'SFTP error {code}'}")
        return int(code)

    # -- operations ----------------------------------------------------------------

    def realpath(self, path: str) -> str:
        kind, payload = self._reply(self._send(REALPATH, _pack_string(os.fsencode(path))))
        if kind == STATUS:
            self._status(payload, path)
        if kind != NAME:
            raise RemoteError(f"{self.remote.name}: unexpected SFTP reply to REALPATH")
        name, _ = _string(payload, 4)
        return os.fsdecode(name)

    def stat(self, path: str, *, follow: bool = True) -> RemoteStat:
        kind, payload = self._reply(self._send(STAT if follow else LSTAT, _pack_string(os.fsencode(path))))
        if kind == STATUS:
            self._status(payload, path)
        if kind != ATTRS:
            raise RemoteError(f"{self.remote.name}: unexpected SFTP reply to STAT")
        return _attrs(payload, 0)[0]

    def listdir(self, path: str) -> list[tuple[bytes, RemoteStat]]:
        """(name, lstat-like attributes) of a folder's entries, `.` and `..` left out."""
        kind, payload = self._reply(self._send(OPENDIR, _pack_string(os.fsencode(path))))
        if kind == STATUS:
            self._status(payload, path)
        if kind != HANDLE:
            raise RemoteError(f"{self.remote.name}: unexpected SFTP reply to OPENDIR")
        handle, _ = _string(payload, 0)
        entries: list[tuple[bytes, RemoteStat]] = []
        try:
            while True:
                kind, payload = self._reply(self._send(READDIR, _pack_string(handle)))
                if kind == STATUS:
                    self._status(payload, path)
                    break
                if kind != NAME:
                    raise RemoteError(f"{self.remote.name}: unexpected SFTP reply to READDIR")
                (count,) = struct.unpack_from(">I", payload, 0)
                pos = 4
                for _ in range(count):
                    name, pos = _string(payload, pos)
                    _long, pos = _string(payload, pos)
                    attrs, pos = _attrs(payload, pos)
                    if name not in (b".", b".."):
                        entries.append((name, attrs))
        finally:
            self._close_handle(handle)
        return entries

    def read(self, path: str, offset: int, size: int, sink: Callable[[bytes], None]) -> int:
        """Bytes [offset, offset+size) of a file into `sink`, in order; how many there were."""
        kind, payload = self._reply(self._send(OPEN, _pack_string(os.fsencode(path)) + struct.pack(">II", OPEN_READ, 0)))
        if kind == STATUS:
            self._status(payload, path)
        if kind != HANDLE:
            raise RemoteError(f"{self.remote.name}: unexpected SFTP reply to OPEN")
        handle, _ = _string(payload, 0)
        done = 0
        try:
            pending: deque[tuple[int, int, int]] = deque()  # (request, offset, length)
            ask = offset
            end = offset + size
            at_end = False
            while True:
                while not at_end and ask < end and len(pending) < READS_IN_FLIGHT:
                    length = min(READ_SIZE, end - ask)
                    pending.append((self._send(READ, _pack_string(handle) + struct.pack(">QI", ask, length)), ask, length))
                    ask += length
                if not pending:
                    break
                request, at, length = pending.popleft()
                kind, payload = self._reply(request)
                if kind == STATUS:
                    self._status(payload, path)  # EOF: the file is shorter than it was
                    at_end = True
                    continue
                if kind != DATA:
                    raise RemoteError(f"{self.remote.name}: unexpected SFTP reply to READ")
                data, _ = _string(payload, 0)
                data = data[:length]  # never more than was asked for
                if at != offset + done or at_end:
                    continue  # after a short read the later answers are not contiguous
                sink(data)
                done += len(data)
                if len(data) < length:
                    # A short read: ask again from where it stopped (servers may cut at any size).
                    at_end = True
                    if offset + done < end:
                        for request, _at, _length in pending:
                            self._reply(request)
                        pending.clear()
                        ask, at_end = offset + done, False
        finally:
            self._close_handle(handle)
        return done

    def _close_handle(self, handle: bytes) -> None:
        kind, payload = self._reply(self._send(CLOSE, _pack_string(handle)))
        if kind == STATUS:
            self._status(payload, "(handle)")

    def abort(self) -> None:
        """End the connection now (from another thread): pending calls fail with one line."""
        with contextlib.suppress(OSError):
            self._proc.kill()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._stdin.close()
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._selector.close()
        self._stdout.close()
        self._stderr_thread.join(timeout=1)
        if self._proc.stderr is not None:
            self._proc.stderr.close()

    def __enter__(self) -> SftpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def mirror_name(name: bytes) -> str | None:
    """A remote file name that is safe as one local path component, else None."""
    if not name or name in (b".", b"..") or b"/" in name or b"\0" in name or len(name) > 255:
        return None
    return os.fsdecode(name)


def local_path(root: Path, remote_path: str) -> Path | None:
    """Where a remote absolute path is mirrored under `root`, or None if it is not a plain path."""
    parts = remote_path.split("/")
    if not remote_path.startswith("/") or any(mirror_name(os.fsencode(p)) is None for p in parts[1:]):
        return None
    return root.joinpath(*parts[1:])
