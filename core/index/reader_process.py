"""Phase 1 on both cores: files read in a second process while this one writes.

Reading (parsing, chunking, BM25: reading.py) and writing (Edge's updates and
merges) each took about half of phase 1, and each holds its process's GIL,
so threads would take turns. A reader process (a fresh interpreter) reads
the files it is handed, in order, and sends back each part's points; the
writer takes them in the same order, so newest-first publishing, the claims
of sessions and the crash-safe protocol (publish.py) are unchanged.

Bounded: the writer hands over files up to AHEAD_BYTES ahead of the one it
writes, and the reader keeps at most BUFFER_BYTES of items waiting to be sent,
pickled as soon as they are read (what the pipe carries, and a fraction of
what they hold as Python objects).
Until the process has started (about a second), the writer reads the files
itself, so the newest sessions are published as soon as without it.
A run with little to read (under PROCESS_BYTES) reads in this process, as does
a run on one core; the reader's start (about a second) would cost more than
it saves. If the reader process dies, the file it was reading is reported
(and read again next run) and the rest are read in this process.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler

from convo_tui.core.index.reading import FileEnd, FileFailed, PartReader, ReadItem, ReadJob

# Read in a second process when at least this much is to be read (bytes of source files).
PROCESS_BYTES = 32 * 2**20
# Files handed to the reader process ahead of the one being written, at most
# this many bytes and this many files.
AHEAD_BYTES = 64 * 2**20
AHEAD_FILES = 256
# Files handed over at most for each file written (the reader reads about twice
# as fast as the writer writes, so it keeps ahead; handing 64 MB at once kept
# the writer preparing them while the newest sessions waited).
HAND_OVER = 4
# Items the reader process holds ready beyond what the pipe holds, pickled (bytes).
# As Python objects a part's points cost about 5.4 bytes a character of their
# text (payloads, BM25 vectors as lists): a buffer of 4 M characters held 22 MB
# of objects, and the reader peaked at 124 MB at 10k messages, 145-148 MB at
# 100k. Pickled as soon as they are read (what `Connection.send` would send),
# the same parts take 1.75 bytes a character and are freed whole: 8 MB hold
# 4.6 M characters of them, and the reader peaked at 110-113 and 125-127 MB
# (BENCHMARKS.md, "Twenty-second session"; at 3 M characters and below phase 1
# slowed: "Twentieth session").
BUFFER_BYTES = 8 * 2**20
# What the reader process sends first, once it can read.
READY = "ready"


class InlineReader:
    """Reads each file in this process when the writer takes its parts."""

    ahead_bytes = 0
    ready = False  # files are never handed over: each is read when its turn comes

    def __init__(self, reader: PartReader):
        self.reader = reader

    def submit(self, job: ReadJob) -> None:
        del job  # read when its items are taken

    def items(self, job: ReadJob) -> Iterator[ReadItem]:
        return self.reader.read(job)

    def close(self) -> None:
        pass


class ProcessReader:
    """A reader process: `submit` hands it a file, `items` takes that file's
    parts back (files are taken in the order they were submitted)."""

    ahead_bytes = AHEAD_BYTES

    def __init__(self, reader: PartReader):
        self.reader = reader
        jobs_in, jobs_out = os.pipe()
        items_in, items_out = os.pipe()
        try:
            # A fresh interpreter running this module alone (multiprocessing's spawn
            # would import the caller's __main__ again, a script and all).
            self._process = subprocess.Popen(
                [sys.executable, "-m", __name__, str(jobs_in), str(items_out)],
                stdin=subprocess.DEVNULL,
                pass_fds=(jobs_in, items_out),
                close_fds=True,
            )
        except BaseException:
            for fd in (jobs_out, items_in):
                os.close(fd)
            raise
        finally:
            for fd in (jobs_in, items_out):  # the reader's ends: closed here, so its death reads as the end of the pipe
                os.close(fd)
        self._jobs = Connection(jobs_out, readable=False)
        self._items = Connection(items_in, writable=False)
        try:
            self._jobs.send(reader)
        except BaseException:
            self.close()
            raise
        self._sent: deque[ReadJob] = deque()  # submitted, not yet read to their end
        self._inline: InlineReader | None = None  # after the process died
        self._started = False  # the process said it is ready (READY)
        self.stopped = ""  # why the process stopped, once it did

    @property
    def ready(self) -> bool:
        """Whether the process has started and takes files (until then the writer
        reads them itself: the newest sessions are not kept waiting a second)."""
        if not self._started and self._inline is None:
            try:
                if self._items.poll(0):
                    self._started = self._items.recv() == READY
            except (EOFError, OSError):
                self._lost()
        return self._started and self._inline is None

    @property
    def pid(self) -> int | None:
        """The reader process, while it reads (None once it died and this process reads)."""
        return self._process.pid if self._inline is None else None

    @property
    def running(self) -> bool:
        return self._process.poll() is None

    def submit(self, job: ReadJob) -> None:
        if self._inline is not None:
            return
        try:
            self._jobs.send(job)
        except OSError:
            self._lost()
            return
        self._sent.append(job)

    def items(self, job: ReadJob) -> Iterator[ReadItem]:
        if self._inline is not None or job not in self._sent:  # not handed over (it was not ready yet): read here
            yield from (self._inline or InlineReader(self.reader)).items(job)
            return
        while self._sent[0] is not job:
            self._skip_rest()  # a file whose parts the writer stopped taking (its error was reported)
            if self._inline is not None:
                yield from self._inline.items(job)
                return
        taken = 0
        while True:
            item = self._receive()
            if item is None:
                if taken:
                    yield FileFailed("other", f"{self.stopped} while reading this file; it is read again next run")
                else:
                    yield from (self._inline or InlineReader(self.reader)).items(job)
                return
            taken += 1
            if isinstance(item, (FileEnd, FileFailed)):
                self._sent.popleft()  # before the last item: the writer stops taking at it
                yield item
                return
            yield item

    def _skip_rest(self) -> None:
        while (item := self._receive()) is not None:
            if isinstance(item, (FileEnd, FileFailed)):
                self._sent.popleft()
                return

    def _receive(self) -> ReadItem | None:
        """The next item, or None once the process is gone (then read here)."""
        try:
            item: ReadItem | str = self._items.recv()
            if item == READY:
                self._started = True
                item = self._items.recv()
        except (EOFError, OSError):
            self._lost()
            return None
        assert not isinstance(item, str)
        return item

    def _lost(self) -> None:
        try:
            code = self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        self.stopped = (
            f"the reader process stopped (killed by signal {-code})"
            if code is not None and code < 0
            else f"the reader process stopped (exit code {code})"
        )
        self._sent.clear()
        self._inline = InlineReader(self.reader)

    def close(self) -> None:
        """Stop the reader: it ends when its pipes close, and is killed if it does not."""
        for end in (self._jobs, self._items):
            end.close()
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


Source = InlineReader | ProcessReader


def open_reader(reader: PartReader, to_read: int) -> Source:
    """A reader process for a run with `to_read` bytes of files to read, when
    it pays (PROCESS_BYTES, two cores); else this process reads."""
    if to_read < PROCESS_BYTES or _cores() < 2:
        return InlineReader(reader)
    try:
        return ProcessReader(reader)
    except Exception:  # cannot start a process here, or a reader that cannot be pickled: read here
        return InlineReader(reader)


@contextmanager
def opened_reader(reader: PartReader, to_read: int) -> Iterator[Source]:
    """open_reader's source, closed at the end whatever happens."""
    source = open_reader(reader, to_read)
    try:
        yield source
    finally:
        source.close()


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# -- the reader process -------------------------------------------------------


def serve(jobs: Connection, items: Connection) -> None:
    """The reader process: read each file handed over and send its items back,
    keeping up to BUFFER_BYTES of them ready (pickled, as `Connection.send`
    would send them) while the writer is busy."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the writer's to handle; it stops this process
    try:
        reader: PartReader = jobs.recv()
        items.send(READY)
    except (EOFError, OSError):
        return
    ready: queue.Queue[memoryview | None] = queue.Queue()
    room = threading.Condition()
    held = [0]

    def send() -> None:
        while (pickled := ready.get()) is not None:
            try:
                items.send_bytes(pickled)  # the writer's `recv` unpickles it
            except OSError:  # the writer is gone
                os._exit(0)
            with room:
                held[0] -= len(pickled)
                room.notify()
            del pickled

    def take() -> None:
        """Jobs as they come, so the writer never waits to hand one over."""
        while True:
            try:
                todo.put(jobs.recv())
            except (EOFError, OSError):
                todo.put(None)
                return

    todo: queue.Queue[ReadJob | None] = queue.Queue()
    sender = threading.Thread(target=send, name="send", daemon=True)
    sender.start()
    threading.Thread(target=take, name="take", daemon=True).start()
    while (job := todo.get()) is not None:
        for item in reader.read(job):
            pickled = ForkingPickler.dumps(item)
            del item
            size = len(pickled)
            with room:
                room.wait_for(lambda: held[0] == 0 or held[0] + size <= BUFFER_BYTES)  # noqa: B023
                held[0] += size
            ready.put(pickled)
            del pickled
    ready.put(None)
    sender.join()  # what is left to send goes before the process ends


if __name__ == "__main__":
    serve(Connection(int(sys.argv[1]), writable=False), Connection(int(sys.argv[2]), readable=False))
