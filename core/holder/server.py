"""The holder's listening side: a Unix socket in the index folder, one thread per client.

Only the process that holds the index lock binds the socket, so a socket file
found there by the lock holder is stale (a holder that died) and is replaced.
Each request runs in its own thread; while it runs the connection gets a
heartbeat every second, so clients can tell "busy" from "gone". Edits are run
one at a time; index runs are serialised by the Library itself.

Stopping is orderly, because the process exits next: an interpreter that
ends while a request thread is still inside onnxruntime or Qdrant aborts
(`terminate called without an active exception`). `stop()` cancels the
running index runs (they end within a model batch), lets the other requests
finish, and returns once every request thread has ended. A client whose
index run was cut short that way gets no answer: it takes the index over and
finishes the run itself (core/holder/remote.py).
"""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from convo_tui.core.errors import ConvoError
from convo_tui.core.holder import codec, peer, protocol
from convo_tui.core.holder.ops import OPERATIONS
from convo_tui.core.holder.release import CodeWatch
from convo_tui.core.store.lock import command_line

if TYPE_CHECKING:
    from convo_tui.core.engine import Engine

# Longest request line accepted (a query, a title, a list of paths).
MAX_REQUEST = 1 << 20
# Seconds `stop()` waits, in all, for the request threads to end once index
# runs are cancelled (a search or a model load finishes well within it).
STOP_WAIT = 30.0
_DONE = object()


class HolderServer:
    """Serve `engine` (this process's Library) to other processes until `stop()`.

    With `idle_exit` (seconds), `on_idle(reason)` is called once no client has
    been connected for that long (`serve --idle-exit`, the holder a command
    starts to keep the index warm for the next ones: cli/keep_warm.py), or
    when a client's `hello` finds this holder stale (core/holder/release.py):
    that client gets no answer and opens the index once this holder lets go."""

    def __init__(
        self,
        engine: Engine,
        index_dir: Path,
        *,
        idle_exit: float | None = None,
        on_idle: Callable[[str], None] | None = None,
    ):
        self.engine = engine
        self.index_dir = Path(index_dir).absolute()
        self.path = protocol.socket_path(index_dir)
        self._listener: socket.socket | None = None
        self._inode: int | None = None
        self._threads: set[threading.Thread] = set()
        self._threads_lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._cancels: set[threading.Event] = set()  # one per running request
        self._edit_lock = threading.Lock()
        self._stopping = threading.Event()
        self._last_client = time.monotonic()  # when the last connection closed (or the start)
        self._idle_exit = idle_exit
        self._on_idle = on_idle
        self._code = CodeWatch() if idle_exit is not None and on_idle is not None else None
        self._retiring = threading.Event()

    # -- lifecycle ------------------------------------------------------------

    def start(self) -> HolderServer:
        """Bind (replacing a stale socket) and accept in a daemon thread."""
        if self.path.parent != self.index_dir:
            peer.make_folder(self.path.parent)  # 0700 and ours, or refused (core/holder/peer.py)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # we hold the index lock: whoever bound it is gone
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(str(self.path))
            os.chmod(self.path, 0o600)
            listener.listen(32)
        except OSError as exc:
            listener.close()
            self._remove_private_folder()
            raise ConvoError(f"cannot serve the index at {self.path}: {exc.strerror or exc}") from None
        self._listener = listener
        self._inode = self.path.stat().st_ino
        self._spawn(self._accept_loop, "holder accept")
        if self._idle_exit is not None and self._on_idle is not None:
            threading.Thread(target=self._watch_idle, name="holder idle", daemon=True).start()
        return self

    def idle_for(self) -> float:
        """Seconds since the last client connection closed; 0 while one is open
        (a request running, an index run streaming its progress)."""
        with self._threads_lock:
            if self._connections:
                return 0.0
            return time.monotonic() - self._last_client

    def _watch_idle(self) -> None:
        assert self._idle_exit is not None and self._on_idle is not None
        limit = self._idle_exit
        while not self._stopping.wait(min(1.0, max(limit - self.idle_for(), 0.05))):
            if self.idle_for() >= limit:
                self._step_down(f"nothing asked for {limit:g} s")
                return

    def _step_down(self, reason: str) -> None:
        """Tell the owner once, whatever the reason (idle, or stale)."""
        with self._threads_lock:
            first = not self._retiring.is_set()
            self._retiring.set()
        if first and self._on_idle is not None:
            self._on_idle(reason)

    def stop(self, wait: float = STOP_WAIT) -> None:
        """Stop accepting, cancel running index runs, let the other requests
        finish, remove the socket; return once every request thread has ended
        (at most `wait` s in all)."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        with contextlib.suppress(OSError):
            if self._inode is not None and self.path.stat().st_ino == self._inode:
                self.path.unlink()
        self._remove_private_folder()
        with self._threads_lock:
            connections = list(self._connections)
            cancels = list(self._cancels)
        for cancel in cancels:
            cancel.set()
        for conn in connections:  # idle clients read EOF; a running request still gets its answer
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RD)
        deadline = time.monotonic() + wait
        while (left := deadline - time.monotonic()) > 0:
            with self._threads_lock:  # a request thread may spawn its worker while we wait
                alive = [t for t in self._threads if t.is_alive() and t is not threading.current_thread()]
            if not alive:
                break
            alive[0].join(left)

    def _remove_private_folder(self) -> None:
        """The short private folder of a socket kept outside the index, once no holder uses it."""
        if self.path.parent != self.index_dir:
            with contextlib.suppress(OSError):
                self.path.parent.rmdir()

    def __enter__(self) -> HolderServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- connections ----------------------------------------------------------

    def _spawn(self, target: Any, name: str, *args: Any) -> None:
        def run() -> None:
            try:
                target(*args)
            finally:
                with self._threads_lock:
                    self._threads.discard(threading.current_thread())

        thread = threading.Thread(target=run, name=name, daemon=True)
        with self._threads_lock:  # stop() sees a thread only once it has started
            self._threads.add(thread)
            thread.start()

    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            listener = self._listener
            if listener is None:
                return
            try:
                conn, _ = listener.accept()
            except OSError:
                return  # closed by stop()
            if not self._same_user(conn):
                conn.close()  # another user's process: not a word
                continue
            self._spawn(self._serve_connection, "holder client", conn)

    @staticmethod
    def _same_user(conn: socket.socket) -> bool:
        try:
            return peer.is_ours(conn)
        except OSError:
            return False

    def _serve_connection(self, conn: socket.socket) -> None:
        with self._threads_lock:
            self._connections.add(conn)
        try:
            self._serve_lines(conn)
        finally:
            with self._threads_lock:
                self._connections.discard(conn)
                self._last_client = time.monotonic()

    def _serve_lines(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rb") as reader:
            while not self._stopping.is_set():
                try:
                    line = reader.readline(MAX_REQUEST)
                except OSError:
                    return
                if not line:
                    return
                if not line.endswith(b"\n"):
                    _send(conn, protocol.error("request too long or not ended by a newline", "ProtocolError"))
                    return
                try:
                    op, args = protocol.check_request(protocol.decode(line))
                    if op != "hello" and op not in OPERATIONS:
                        raise protocol.ProtocolError(f"unknown op {op!r}")
                except protocol.ProtocolError as exc:
                    if not _send(conn, protocol.error(str(exc), "ProtocolError")):
                        return
                    continue
                if op == "hello" and self._stale_for(args):
                    return  # closed unanswered: the client opens the index once we let go
                if not self._answer(conn, op, args):
                    return

    def _stale_for(self, args: dict[str, Any]) -> bool:
        """A holder that stops by itself steps down for a client of another
        release, or once its own code changed on disk (core/holder/release.py)."""
        if self._code is None:
            return False
        if self._retiring.is_set():
            return True
        reason = self._code.why_stale(args.get("release"))
        if reason is None:
            return False
        self._step_down(reason)
        return True

    def _answer(self, conn: socket.socket, op: str, args: dict[str, Any]) -> bool:
        """Run one request beside a heartbeat; False once the client is gone."""
        replies: queue.Queue[Any] = queue.Queue()
        cancel = threading.Event()
        with self._threads_lock:
            if self._stopping.is_set():
                return False  # stop() has begun: nothing new starts
            self._cancels.add(cancel)

        def work() -> None:
            try:
                replies.put(protocol.ok(self._run(op, args, replies.put, cancel)))
            except ConvoError as exc:
                replies.put(protocol.error(str(exc), type(exc).__name__))
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # a bug (or an engine panic) must not take the holder down with it
                replies.put(protocol.error(f"internal error: {type(exc).__name__}: {exc}", "InternalError"))
            finally:
                with self._threads_lock:
                    self._cancels.discard(cancel)
                replies.put(_DONE)

        self._spawn(work, f"holder {op}")
        cut_short = op in OPERATIONS and OPERATIONS[op].streams
        while True:
            try:
                reply = replies.get(timeout=protocol.HEARTBEAT)
            except queue.Empty:
                reply = {"busy": True}
            if reply is _DONE:
                return True
            if cut_short and ("ok" in reply or "error" in reply) and self._stopping.is_set():
                return False  # an index run the stop cancelled: no answer, the client takes over and finishes it
            if "v" not in reply:
                reply = {"v": protocol.VERSION, **reply}
            if not _send(conn, reply):
                cancel.set()  # nobody is waiting for this index run any more
                return False

    def _run(self, name: str, args: dict[str, Any], emit: Any, cancel: threading.Event) -> Any:
        """The engine's answer to one request, as JSON (core/holder/ops.py says how)."""
        if name == "hello":
            return {
                "pid": os.getpid(),
                "command": command_line(),
                "protocol": protocol.VERSION,
                "model": asdict(self.engine.model_info()),
            }
        operation = OPERATIONS[name]
        kwargs = operation.from_wire(args)
        if operation.streams:
            kwargs["progress"] = lambda p: emit({"progress": codec.progress_json(p)})
            kwargs["cancel"] = cancel
        method = getattr(self.engine, operation.name)
        if operation.edit:
            with self._edit_lock:
                return operation.result.encode(method(**kwargs))
        return operation.result.encode(method(**kwargs))


def _send(conn: socket.socket, message: dict[str, Any]) -> bool:
    try:
        conn.sendall(protocol.encode(message))
    except OSError:
        return False
    return True
