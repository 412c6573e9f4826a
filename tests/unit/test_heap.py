"""The C heap's settings (core/heap.py): the long-running commands keep their
threads to two malloc arenas. glibc only; elsewhere the calls do nothing."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest
from convo_tui.cli import main as cli_main
from convo_tui.core import heap

# Eight threads allocate at once, then malloc_stats() prints one "Arena N:" block per arena.
ARENAS = r"""
import ctypes, sys, threading
from convo_tui.core.heap import share_heap_arenas
if sys.argv[1] == "shared":
    assert share_heap_arenas()
gate = threading.Barrier(8)
kept = []
def work():
    gate.wait()
    kept.append([bytearray(4096) for _ in range(2000)])
threads = [threading.Thread(target=work) for _ in range(8)]
[t.start() for t in threads]
[t.join() for t in threads]
ctypes.CDLL(None).malloc_stats()
"""


def arenas(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", ARENAS, mode], capture_output=True, text=True, timeout=60, check=True)
    return sum(1 for line in done.stderr.splitlines() if line.startswith("Arena "))


@pytest.mark.skipif(not sys.platform.startswith("linux") or heap.libc() is None, reason="glibc's malloc")
def test_threads_share_two_arenas_once_the_limit_is_set_first():
    assert arenas("shared") <= heap.ARENA_MAX < arenas("default")


@pytest.mark.parametrize(
    ("command", "shared"), [("index", True), ("serve", True), ("mcp", True), ("search", False), ("sessions", False)]
)
def test_the_long_running_commands_set_the_limit_before_they_run(monkeypatch, command, shared):
    calls: list[str] = []

    class Parser:
        def __init__(self, _argv=None):
            pass

        def parse_args(self, _argv):
            return argparse.Namespace(command=command, func=lambda _args: calls.append("ran"))

    monkeypatch.setattr(cli_main, "build_parser", Parser)
    monkeypatch.setattr(heap, "share_heap_arenas", lambda: calls.append("arenas") or True)
    assert cli_main.main([command]) == 0
    assert calls == (["arenas", "ran"] if shared else ["ran"])
