"""A `convo-tui` process leaves the index it lets go in the kernel's page cache
(core/store/parking.py): it keeps the shards open, and the lock held, to its
end, what it wrote flushed; the next process finds the index free, cached and
whole; the same process can open it again."""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from convo_tui.core import process
from convo_tui.core.errors import IndexBusy, IndexUnavailable
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings
from convo_tui.core.store import parking
from convo_tui.core.store.base import Cond, Filter, Point, SparseVec
from convo_tui.core.store.edge import EdgeStore
from convo_tui.core.store.lock import IndexLock

from tests.helpers.index_copy import copy_index
from tests.paths import ROOT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux: Edge's page-cache advice")

CLI = [sys.executable, "-m", "convo_tui.cli.main"]
ALL = Filter(must=(Cond("session_id", value="s"),))
CLOSER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from convo_tui.core.store.base import Filter
    from convo_tui.core.store.edge import EdgeStore

    store = EdgeStore(Path(sys.argv[1]))
    store.count(Filter())
    store.close()
    """
)


@pytest.fixture
def ending(monkeypatch) -> Iterator[None]:
    """This test's process is one that ends with its command (as `convo-tui` is)."""
    monkeypatch.setattr(process, "_ending", True)
    yield
    while (path := parking.parked_path()) is not None:
        parking.unpark(path)


def _built(index: Path) -> Path:
    store = EdgeStore(index)
    store.ensure(4)
    store.upsert([Point(f"s:turn-{i}", [1.0, 0.0, 0.0, 0.0], SparseVec([i + 1], [1.0]), {"session_id": "s"}) for i in range(3)])
    store.optimize()
    store.close()
    return index


def _free(index: Path) -> bool:
    lock = IndexLock(index)
    try:
        lock.acquire()
    except IndexBusy:
        return False
    lock.release()
    return True


class _Recording:
    """A shard that notes its flushes (Edge's shard object cannot be patched)."""

    def __init__(self, shard: object):
        self.shard, self.flushes = shard, 0

    def flush(self) -> None:
        self.flushes += 1
        self.shard.flush()  # type: ignore[attr-defined]

    def close(self) -> None:
        self.shard.close()  # type: ignore[attr-defined]


def test_a_store_it_lets_go_stays_open_to_its_end_what_it_wrote_flushed(tmp_path, ending):
    index = _built(tmp_path / "index")
    assert _free(index) and parking.parked_path() is None  # a plain close lets go at once
    writer = EdgeStore(index)
    writer.upsert([Point("s:turn-8", [1.0, 0.0, 0.0, 0.0], SparseVec([8], [1.0]), {"session_id": "s"})])
    main = writer._shard = _Recording(writer._shard)  # type: ignore[assignment]
    writer.let_go()
    assert main.flushes == 1  # what a close would have flushed
    assert parking.parked_path() == index and not _free(index)  # its shards (and Edge's WAL lock) are still open
    writer.let_go()
    writer.close()  # once parked, neither changes anything
    assert not _free(index)
    reader = EdgeStore(index)  # the parked store is closed first
    assert reader.count(ALL) == 4
    reader.let_go()  # it read only: parked all the same
    assert parking.parked_path() == index and not _free(index)


def test_the_same_process_opens_a_parked_index_again(tmp_path, ending):
    index = _built(tmp_path / "index")
    first = EdgeStore(index, read_only=True)
    first.count(ALL)
    first.let_go()
    again = EdgeStore(index)  # closes the parked shards first: its lock is free for this open
    assert parking.parked_path() is None
    again.upsert([Point("s:turn-9", [1.0, 0.0, 0.0, 0.0], SparseVec([9], [1.0]), {"session_id": "s"})])
    again.let_go()
    assert parking.parked_path() == index
    parking.unpark(index)  # what opening it again does first
    assert _free(index)
    last = EdgeStore(index, read_only=True)
    assert last.count(ALL) == 4
    last.close()


def test_parking_another_index_closes_the_one_parked_before(tmp_path, ending):
    one, two = _built(tmp_path / "one"), _built(tmp_path / "two")
    for index in (one, two):
        store = EdgeStore(index, read_only=True)
        store.count(ALL)
        store.let_go()
    assert parking.parked_path() == two
    assert _free(one) and not _free(two)


def test_a_process_that_does_not_end_with_its_command_closes_as_before(tmp_path):
    index = _built(tmp_path / "index")
    reader = EdgeStore(index, read_only=True)
    reader.count(ALL)
    reader.let_go()
    assert parking.parked_path() is None and _free(index)


def test_an_open_that_fails_its_checks_lets_the_lock_go_at_once(tmp_path, ending):
    """An app or `mcp` that met an index it may not read keeps running: the rebuild
    its error names must find the index free."""
    index = _built(tmp_path / "index")
    (index / "meta.json").write_text(json.dumps({"schema": 0}), encoding="utf-8")
    with pytest.raises(IndexUnavailable, match="older convo-tui"):
        Library.open(Settings(index_dir=index))
    assert parking.parked_path() is None and _free(index)


HOLD_WAL = textwrap.dedent(
    """
    import sys
    import qdrant_edge

    shard = qdrant_edge.EdgeShard.load(sys.argv[1], None)  # Edge's lock on its WAL, not ours
    print("loaded", flush=True)
    sys.stdin.readline()
    """
)


def test_a_load_that_meets_edges_wal_lock_is_busy_not_damaged(tmp_path):
    """What a process opening the index may meet in the moment a parked one exits."""
    index = _built(tmp_path / "index")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_WAL, str(index / "shard")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "loaded"
        for repair in (False, True):  # not even `index --rebuild` takes it for damage
            with pytest.raises(IndexBusy):
                EdgeStore(index, repair=repair)
            assert _free(index)
    finally:
        holder.communicate("\n", timeout=60)
    EdgeStore(index).close()  # free once it has gone


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from convo_tui.core.process import ending_process
    from convo_tui.core.store.base import Point, SparseVec
    from convo_tui.core.store.edge import EdgeStore

    ending_process()
    store = EdgeStore(Path(sys.argv[1]))
    store.ensure(4)
    store.upsert([Point(f"s:turn-{i}", [1.0, 0.0, 0.0, 0.0], SparseVec([i + 1], [1.0]), {"session_id": "s"}) for i in range(5)])
    store.let_go()
    """
)


def test_what_a_parked_store_wrote_is_there_for_the_next_process(tmp_path):
    index = tmp_path / "index"
    subprocess.run([sys.executable, "-c", WRITER, str(index)], check=True, timeout=120)
    store = EdgeStore(index)  # free: the lock (and Edge's) went with the writer
    try:
        assert store.count(ALL) == 5
    finally:
        store.close()


def _cached_pages(folder: Path) -> int:
    """Pages of the main shard's storage pages (payloads, vectors, payload indexes) in the page cache (mincore)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    total = 0
    for path in (folder / "shard").rglob("page_*.dat"):
        size = path.stat().st_size
        with open(path, "rb") as file, mmap.mmap(file.fileno(), size, access=mmap.ACCESS_COPY) as mapped:
            pages = (ctypes.c_ubyte * ((size + mmap.PAGESIZE - 1) // mmap.PAGESIZE))()
            start = ctypes.c_char.from_buffer(mapped)  # a private mapping: nothing read, nothing written
            try:
                assert libc.mincore(ctypes.addressof(start), size, pages) == 0, os.strerror(ctypes.get_errno())
            finally:
                del start
            total += sum(page & 1 for page in pages)
    return total


def _on_tmpfs(folder: Path) -> bool:
    """Whether `folder` is on tmpfs, where there is no page cache to leave (the file is its pages)."""
    best, kind = "", ""
    for line in Path("/proc/mounts").read_text().splitlines():
        _dev, point, fs_type = line.split()[:3]
        if (str(folder) + "/").startswith(point.rstrip("/") + "/") and len(point) > len(best):
            best, kind = point, fs_type
    return kind in ("tmpfs", "ramfs")


@pytest.fixture
def disk_index(demo_built: Path) -> Iterator[Path]:
    """A copy of the demo index on a disk (not tmpfs, where pages cannot be dropped):
    in the temp folder, or else in the checkout (.gitignore names the folder)."""
    place = next((Path(p) for p in (tempfile.gettempdir(), ROOT) if not _on_tmpfs(Path(p).resolve())), None)
    if place is None:
        pytest.skip("the temp folder and the checkout are on tmpfs: no page cache to keep")
    with tempfile.TemporaryDirectory(prefix="convo-tui-parking-", dir=place) as folder:
        yield copy_index(demo_built / "index", Path(folder) / "index")


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CONVO_TUI_KEEP_WARM": "0"}
    return subprocess.run([*CLI, *argv], cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)


def test_the_index_a_command_let_go_is_still_cached_and_free_for_the_next(disk_index: Path):
    # A process that closes the store as a library does: Edge evicts what it mapped.
    subprocess.run([sys.executable, "-c", CLOSER, str(disk_index)], check=True, timeout=120)
    assert _cached_pages(disk_index) == 0
    search = ("search", "qdrant collection", "--mode", "keyword", "--json", "--index-dir", str(disk_index))
    first = _run(*search)
    assert first.returncode == 0 and first.stdout, first.stderr
    assert _cached_pages(disk_index) > 0  # what the search read stays for the next process
    second = _run(*search)  # the lock (and Edge's) came free with the first process
    assert (second.returncode, second.stdout) == (0, first.stdout), second.stderr


class _FlushFails:
    """A shard whose flush fails, as on a full disk (Edge raises a plain Exception)."""

    def __init__(self, shard: object):
        self.shard = shard

    def flush(self) -> None:
        raise Exception("Service runtime error: No space left on device (os error 28)")

    def close(self) -> None:
        self.shard.close()  # type: ignore[attr-defined]


def test_a_store_whose_flush_fails_reports_it_and_lets_the_lock_go(tmp_path, ending):
    index = _built(tmp_path / "index")
    store = EdgeStore(index)
    store.upsert([Point("s:turn-7", [1.0, 0.0, 0.0, 0.0], SparseVec([7], [1.0]), {"session_id": "s"})])
    store._shard = _FlushFails(store._shard)  # type: ignore[assignment]
    with pytest.raises(IndexUnavailable):
        store.let_go()
    assert parking.parked_path() is None and _free(index)  # closed as before parking: nothing held
