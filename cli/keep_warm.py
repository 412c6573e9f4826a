"""Keep the index loaded between commands (`keep_warm`).

A command that finds no holder would load the index itself and drop it when
it ends: at a million messages each `convo-tui search` paid 6 s for that,
against 0.3 s for one a holder answers (BENCHMARKS.md, "Twelfth session").
So a reading command that opened the index itself starts, once it is done
with it, `convo-tui serve --no-watch --idle-exit N` for the index, detached:
the commands that follow are answered by it, until none has asked anything
for N seconds and it exits. The command that starts it pays nothing more (it
answered before, as it always did); nothing is started for an index not built
yet, a folder this user may not write, or one a holder serves already.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from convo_tui.core.holder import protocol
from convo_tui.core.holder.access import is_built, may_write
from convo_tui.core.settings import Settings

# The holder's output (what it says when it starts, stops or fails), in the index folder.
LOG_NAME = "keep-warm.log"
# Appended to (a holder stepping down may still write its last lines while the
# next one starts), and begun again once it is this long.
LOG_MAX_BYTES = 64 * 1024


def wanted(settings: Settings) -> bool:
    """Whether a reading command should start a holder: keep_warm is on, the index
    is embedded and built, this user may write it, and no holder serves it now."""
    if settings.keep_warm <= 0 or settings.qdrant_url or not protocol.supported():
        return False
    index = Path(settings.index_dir)
    if not is_built(index) or not may_write(index):
        return False
    # A socket file means a holder (or one that died: the command that opens the
    # index then replaces it, and the next command starts a holder again).
    return not protocol.socket_path(index).exists()


def command(settings: Settings) -> list[str]:
    """The holder's command line: this interpreter, the same index and settings file.
    `--config` is an option of `convo-tui` itself, so it comes before the command."""
    line = [sys.executable, "-m", "convo_tui"]
    if settings.config_path is not None and settings.config_path.is_file():
        line += ["--config", str(settings.config_path.absolute())]
    line += ["serve", "--no-watch", "--idle-exit", str(settings.keep_warm)]
    line += ["--index-dir", str(Path(settings.index_dir).absolute())]
    if settings.model != "auto":
        line += ["--model", settings.model]
    return line


def start(settings: Settings) -> bool:
    """Start the holder, detached, and return at once: it loads the index while the
    user reads this command's answer (a command that comes before it answers waits
    for it, as for any holder still opening the index). False: it could not start."""
    index = Path(settings.index_dir)
    log_path = index / LOG_NAME
    try:
        if log_path.is_file() and log_path.stat().st_size > LOG_MAX_BYTES:
            log_path.unlink()
        with open(log_path, "ab") as log:
            subprocess.Popen(
                command(settings),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,  # not stopped by the terminal's Ctrl+C or its closing
                close_fds=True,
            )
    except OSError:
        return False
    return True
