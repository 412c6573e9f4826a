"""Which convo-tui a holder runs, so that a holder left from before an upgrade
does not keep answering with the old code.

A command that finds no holder starts one that lives until nothing has asked
for a while (cli/keep_warm.py); after `pip install -U convo-tui` (or a `git
pull` in a development checkout) that holder would go on answering every
command with the code it loaded. Clients say which release they are in their
`hello`; a holder that stops by itself (`--idle-exit`) steps down when the
release differs or its own engine's files changed on disk since it started,
and the command opens the index itself, as if there had been no holder.
"""

from __future__ import annotations

import os
from pathlib import Path

import convo_tui

# The engine's folder (core/, mapped to convo_tui.core): what a holder runs.
_ENGINE = Path(__file__).resolve().parents[1]


def release() -> str:
    """This process's convo-tui version (sent in `hello`)."""
    return convo_tui.__version__


def code_stamp(folder: Path = _ENGINE) -> tuple[int, int]:
    """(number of .py files, newest modification in ns) under `folder`: changes
    when an upgrade or a checkout rewrites the engine. One walk, ~4 ms."""
    count = newest = 0
    for dirpath, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                try:
                    mtime = os.stat(os.path.join(dirpath, name)).st_mtime_ns
                except OSError:
                    continue  # removed while we walk: the count tells
                count += 1
                newest = max(newest, mtime)
    return count, newest


class CodeWatch:
    """Whether the engine on disk is still the one this process loaded."""

    def __init__(self, folder: Path = _ENGINE):
        self.folder = folder
        self.at_start = code_stamp(folder)

    def why_stale(self, client_release: object) -> str | None:
        """One line saying why a holder should step down for this client, or None."""
        own = release()
        if isinstance(client_release, str) and client_release != own:
            return f"a command of convo-tui {client_release} asked; this holder runs {own}"
        if code_stamp(self.folder) != self.at_start:
            return f"convo-tui's files under {self.folder} changed since this holder started"
        return None
