"""Two processes on one Edge index, at the store level: the second is refused in one line.

The store still opens in one process only: that is what keeps two writers from
corrupting the shard. Above it, the refused process asks the holder instead
(core/holder/, tests/engine/test_two_processes.py); IndexBusy (with the holder's pid)
is how it knows to.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest
import qdrant_edge as qe
from convo_tui.core.errors import IndexBusy, IndexUnavailable
from convo_tui.core.store.base import Cond, Filter, Point, SparseVec
from convo_tui.core.store.edge import EdgeStore

from tests.paths import ROOT

HOLDER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[2])
    from convo_tui.core.store.base import Point, SparseVec
    from convo_tui.core.store.edge import EdgeStore

    store = EdgeStore(__import__("pathlib").Path(sys.argv[1]))
    store.ensure(4)
    store.upsert([Point("held:turn-0", [1.0, 0.0, 0.0, 0.0], SparseVec([5], [1.0]), {"session_id": "held"})])
    print("ready", flush=True)
    sys.stdin.readline()  # hold the index until the test lets go
    store.close()
    print("closed", flush=True)
    """
)


@pytest.fixture
def holder(tmp_path):
    """A real second process that opens the index and keeps it."""
    script = tmp_path / "hold_index.py"
    script.write_text(HOLDER)
    index = tmp_path / "index"
    proc = subprocess.Popen(
        [sys.executable, str(script), str(index), str(ROOT)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "ready"
    yield proc, index
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=30)


def test_second_process_gets_one_line_naming_the_holder(holder):
    proc, index = holder
    for read_only in (False, True):
        with pytest.raises(IndexUnavailable) as err:
            EdgeStore(index, read_only=read_only)
        assert isinstance(err.value, IndexBusy) and err.value.pid == proc.pid
        message = str(err.value)
        assert "\n" not in message
        assert message.startswith(f"index {index} is in use by pid {proc.pid} (")
        assert "hold_index.py" in message
        assert message.endswith("wait for it to finish or close it, then try again")
        assert "WAL" not in message


def test_index_opens_once_the_holder_closes(holder):
    proc, index = holder
    proc.stdin.write("\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "closed"
    proc.wait(timeout=30)
    with EdgeStore(index, read_only=True) as store:
        assert store.count(Filter((Cond("session_id", "held"),))) == 1
    assert (index / "lock").read_text() == ""


def test_a_killed_holder_leaves_no_stale_lock_and_no_lost_write(holder):
    proc, index = holder
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    with EdgeStore(index) as store:
        # The upsert was never flushed: Edge replays it from its WAL.
        assert [s.payload["key"] for s in store.scroll()] == ["held:turn-0"]
        store.upsert([Point("mine:turn-0", [0.0, 1.0, 0.0, 0.0], SparseVec([6], [1.0]), {})])
        assert store.count() == 2


def test_same_process_second_open_is_refused_too(tmp_path):
    index = tmp_path / "index"
    with EdgeStore(index) as first:
        first.ensure(4)
        with pytest.raises(IndexUnavailable, match=rf"in use by this process \(pid {os.getpid()}\)"):
            EdgeStore(index)
        assert first.count() == 0
    with EdgeStore(index) as again:
        assert again.count() == 0


def test_lock_file_names_the_holder_while_held(tmp_path):
    index = tmp_path / "index"
    with EdgeStore(index):
        pid, command = (index / "lock").read_text().splitlines()
        assert pid == str(os.getpid())
        assert "python" in command or "pytest" in command


def test_edge_itself_refuses_a_second_load_with_a_raw_error(tmp_path):
    """Pins the Edge behaviour our lock exists for; if Edge changes, revisit lock.py."""
    index = tmp_path / "index"
    with EdgeStore(index) as store:
        store.ensure(4)
        with pytest.raises(Exception, match=r"WAL.*WouldBlock"):
            qe.EdgeShard.load(str(index / "shard"))
