"""keep_warm as a person meets it: the first `convo-tui search` answers as it
always did and then leaves a holder with the index loaded, the next command
is answered by it, and a holder that nobody asks anything stops by itself.
Real processes, model and store."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from convo_tui.core.holder import client, protocol

import convo_tui
from bench.holders import gone, holder_pid, stop
from tests.helpers.index_copy import copy_index
from tests.paths import ROOT

CLI = [sys.executable, "-m", "convo_tui.cli.main"]
# This checkout run as release 9.9.9: what `pip install -U` would bring.
UPGRADED = [
    sys.executable,
    "-c",
    "import sys, convo_tui; convo_tui.__version__ = '9.9.9'; from convo_tui.cli.main import main; sys.exit(main(sys.argv[1:]))",
]


@pytest.fixture(scope="module")
def index_dir(demo_built: Path, tmp_path_factory) -> Path:
    """A copy of the demo's index (the tests stop the holders they start)."""
    index_dir = tmp_path_factory.mktemp("keep-warm") / "index"
    copy_index(demo_built / "index", index_dir)
    return index_dir


def test_a_search_leaves_the_index_loaded_and_the_next_one_is_answered_by_it(index_dir: Path, tmp_path: Path):
    # A settings file, as anyone who changed a setting has: the holder is started with it.
    settings = tmp_path / "config.toml"
    settings.write_text("debounce_ms = 200\n")
    env = {**os.environ, "CONVO_TUI_KEEP_WARM": "120", "CONVO_TUI_CONFIG": str(settings)}
    search = [*CLI, "search", "qdrant collection", "--mode", "keyword", "--json", "--index-dir", str(index_dir)]
    socket = protocol.socket_path(index_dir)
    first = subprocess.run(search, cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)
    holder = 0
    try:
        assert first.returncode == 0, first.stderr
        assert first.stderr == ""  # nothing said about the holder: the output is the search's
        assert [json.loads(line)["kind"] for line in first.stdout.splitlines()]  # it found something
        holder = holder_pid(index_dir)  # started as the search ended, detached: it answers once it has the index
        line = Path(f"/proc/{holder}/cmdline").read_bytes().split(b"\0")
        assert line[3:9] == [b"--config", os.fsencode(settings), b"serve", b"--no-watch", b"--idle-exit", b"120"]
        second = subprocess.run(search, cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)
        assert (second.returncode, second.stdout) == (0, first.stdout)
        assert int(client.call(socket, "hello")["pid"]) == holder  # the same holder answered
        assert "serving" in (index_dir / "keep-warm.log").read_text()
    finally:
        if holder:
            stop(holder)
        else:  # failed before it knew the holder: stop one that answers by now
            with contextlib.suppress(client.NoHolder):
                stop(int(client.call(socket, "hello")["pid"]))
    assert not socket.exists()


def test_after_an_upgrade_the_holder_left_from_before_steps_down(index_dir: Path):
    """A holder the old release left keeps the old code loaded; the first command
    of the new release must not be answered by it. Here the command is this
    checkout run as release 9.9.9 (what `pip install -U` would bring)."""
    env = {**os.environ, "CONVO_TUI_KEEP_WARM": "120"}
    args = ["search", "qdrant collection", "--mode", "keyword", "--json", "--index-dir", str(index_dir)]
    first = subprocess.run([*CLI, *args], cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)
    assert first.returncode == 0, first.stderr
    old = holder_pid(index_dir)
    new = 0
    try:
        second = subprocess.run([*UPGRADED, *args], cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)
        assert (second.returncode, second.stdout, second.stderr) == (0, first.stdout, "")
        # It let the index go before the command could open it, and then ends.
        assert _until(lambda: gone(old)), f"the holder of the release before ({old}) did not stop"
        new = holder_pid(index_dir)  # the new release left its own holder
        assert new != old
        log = (index_dir / "keep-warm.log").read_text()
        assert f"convo-tui: a command of convo-tui 9.9.9 asked; this holder runs {convo_tui.__version__}: stopping\n" in log
        assert "\0" not in log  # both wrote to it, neither over the other
    finally:
        stop(old)
        if new:
            stop(new)


def test_serve_of_a_new_release_takes_over_from_the_holder_left_from_before(index_dir: Path):
    """`serve` asked the holder left from before an upgrade and, as it stepped down,
    failed with "the index holder ... went away before answering"."""
    env = {**os.environ, "CONVO_TUI_KEEP_WARM": "120"}
    search = [*CLI, "search", "qdrant collection", "--mode", "keyword", "--index-dir", str(index_dir)]
    assert subprocess.run(search, cwd=ROOT, capture_output=True, env=env, timeout=120).returncode == 0
    old = holder_pid(index_dir)
    try:
        serve = subprocess.run(
            [*UPGRADED, "serve", "--no-watch", "--idle-exit", "1", "--index-dir", str(index_dir)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert serve.returncode == 0, serve.stderr
        assert "convo-tui: serving" in serve.stderr and serve.stderr.endswith("convo-tui: stopped serving\n")
        assert _until(lambda: gone(old))
    finally:
        stop(old)


def test_no_holder_is_left_when_keep_warm_is_off(index_dir: Path):
    (index_dir / "keep-warm.log").unlink(missing_ok=True)  # the other test's
    env = {**os.environ, "CONVO_TUI_KEEP_WARM": "0"}
    done = subprocess.run(
        [*CLI, "search", "qdrant collection", "--mode", "keyword", "--index-dir", str(index_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    # A holder started would have its log opened before it runs, by the search itself.
    assert not (index_dir / "keep-warm.log").exists()
    assert not protocol.socket_path(index_dir).exists()


def test_serve_stops_by_itself_once_nothing_asks(index_dir: Path):
    serve = subprocess.run(
        [*CLI, "serve", "--no-watch", "--idle-exit", "1", "--index-dir", str(index_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert serve.returncode == 0, serve.stderr
    assert "convo-tui: nothing asked for 1 s: stopping\n" in serve.stderr
    assert serve.stderr.endswith("convo-tui: stopped serving\n")


def _until(condition, seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
