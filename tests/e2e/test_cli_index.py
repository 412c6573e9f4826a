"""`convo-tui index` as a person runs it: in a terminal, into a file, and beside another process.

Issue 23: in a terminal it crashed when the semantic phase began (IndexError in
the progress bars, exit 1); into a file it printed nothing for minutes; beside
another holder it said nothing of who did the work.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from convo_tui.core.library import Library
from convo_tui.core.settings import Settings

from tests.e2e.conftest import run_cli
from tests.e2e.terminal import convo_tui
from tests.helpers.demo_corpus import copy_demo
from tests.paths import ROOT

WORKER = ROOT / "tests" / "helpers" / "index_worker.py"
ESCAPE = re.compile(r"\x1b\[")


def _intact(index_dir: Path, sessions: int) -> None:
    """The lock is free, every session is there and every text has its vector."""
    with Library.open(Settings(index_dir=index_dir)) as library:
        assert len(library.sessions()) == sessions
        status = library.semantic_status()
        assert status.ready == status.total > 0


def test_index_in_a_terminal_shows_both_phases_and_ends_with_the_report(terminal, tmp_path: Path):
    corpus = copy_demo(tmp_path)
    term = terminal([*convo_tui(), "index", str(corpus), "--index-dir", str(tmp_path / "index")], cols=80, rows=24)
    term.wait_for(re.compile(r"^keyword .*files", re.M))
    term.wait_for(re.compile(r"^semantic .*texts \(\d+%\)", re.M))  # the bar the old display crashed on
    assert term.wait_exit() == 0, term.scrollback()
    shown = term.scrollback()
    assert "Traceback" not in term.raw
    assert "sessions: 15 added, 0 updated, 0 unchanged, 0 removed; 0 file(s) skipped" in shown
    assert re.search(r"^semantic: (\d+)/\1 texts with vectors \(100%\)", shown, re.M), shown
    assert "loading the embedding model" in shown
    _intact(tmp_path / "index", 15)


def test_index_into_a_file_tells_who_holds_the_index_waits_then_takes_over(tmp_path: Path):
    """Another process (an `index` run) holds the index and is stopped mid-run: this run
    says it waits for that pid, then that it goes on itself, in plain lines; then it is killed."""
    corpus = copy_demo(tmp_path)
    index_dir = tmp_path / "index"
    holder = subprocess.Popen(
        [sys.executable, str(WORKER), str(index_dir), "index", str(corpus), "2"],
        env={**os.environ, "CONVO_TUI_TEST_PAUSE_AT": "4"},  # a few writes into phase 1
        stdout=subprocess.PIPE,
        text=True,
    )
    client = None
    try:
        assert holder.stdout.readline().strip() == "ready"
        assert holder.stdout.readline().strip() == "paused"  # holds the index and its run's turn
        client = subprocess.Popen(
            [*convo_tui(), "index", str(corpus), "--index-dir", str(index_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        said = [client.stderr.readline(), client.stderr.readline()]
        assert said == [
            f"convo-tui: handed to pid {holder.pid} (index_worker.py index), which holds the index\n",
            f"convo-tui: waiting for pid {holder.pid} (index_worker.py index) to finish its index run\n",
        ], said
        holder.kill()  # the holder dies mid-run: this run takes the index over
        holder.wait(30)
        out, err = client.communicate(timeout=240)
    finally:
        for proc in (holder, client):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
    lines = err.splitlines()
    assert client.returncode == 0, err
    assert lines[0] == f"convo-tui: pid {holder.pid} (index_worker.py index) stopped; the run goes on here"
    assert not ESCAPE.search(err) and "Traceback" not in err
    assert any(re.fullmatch(r"convo-tui: keyword: \d+/\d+ files.*", line) for line in lines), err
    assert re.search(r"^convo-tui: semantic: (\d+(?:,\d+)?)/\1 texts \(100%\)$", err, re.M), err
    assert "sessions: " in out and "semantic: " in out
    _intact(index_dir, 15)

    # Again, nothing new: output to a file, read when the command ends (no terminal anywhere).
    again = run_cli("index", str(corpus), "--index-dir", str(index_dir))
    assert again.returncode == 0, again.stderr
    assert not ESCAPE.search(again.stderr + again.stdout)
    told = again.stderr.splitlines()
    assert "convo-tui: keyword: no new or changed files" in told
    assert re.fullmatch(r"convo-tui: semantic: (\d+)/\1 texts \(100%\)", told[-1]), told
    assert again.stdout.startswith("sessions: 0 added, 0 updated, 15 unchanged, 0 removed")
