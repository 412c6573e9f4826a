"""A real terminal for the end-to-end tier: the program runs in a pseudo-terminal
(ptyprocess) of a fixed size, and a VT emulator (pyte) keeps the screen it drew,
so a test reads what a person would see and types what a person would type.

Waiting is on the program's own output (a condition variable the reader thread
notifies on every chunk), never a sleep: `wait_for` returns as soon as the text
is on the screen, or fails after `timeout` seconds with the screen in the message.
"""

from __future__ import annotations

import codecs
import os
import re
import shutil
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pyte
from ptyprocess import PtyProcess

# Keys as a terminal sends them (xterm).
KEYS = {
    "enter": "\r",
    "tab": "\t",
    "shift+tab": "\x1b[Z",
    "escape": "\x1b",
    "backspace": "\x7f",
    "up": "\x1b[A",
    "down": "\x1b[B",
    "right": "\x1b[C",
    "left": "\x1b[D",
    "home": "\x1b[H",
    "end": "\x1b[F",
    "pageup": "\x1b[5~",
    "pagedown": "\x1b[6~",
    "f1": "\x1bOP",
    "f2": "\x1bOQ",
    "f3": "\x1bOR",
    "f4": "\x1bOS",
    "f5": "\x1b[15~",
    "f6": "\x1b[17~",
    "f7": "\x1b[18~",
    **{f"ctrl+{c}": chr(ord(c) - ord("a") + 1) for c in "abcdefghijklmnopqrstuvwxyz"},
}
DEFAULT_TIMEOUT = 60.0


def convo_tui() -> list[str]:
    """The installed console script, as a person runs it."""
    script = Path(sys.executable).with_name("convo-tui")
    return [str(script)] if script.exists() else [shutil.which("convo-tui") or "convo-tui"]


class Terminal:
    """One program in a pty of `cols` x `rows`, its screen kept by pyte."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cols: int = 80,
        rows: int = 24,
        env: dict[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ):
        self.screen = pyte.HistoryScreen(cols, rows, history=5000)
        self.screen.set_mode(pyte.modes.LNM)  # a bare \n starts the line over, as the tty's onlcr does
        self.stream = pyte.Stream(self.screen)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.raw = ""  # everything the program wrote, escapes included
        self._changed = threading.Condition()
        self._eof = False
        full_env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(cols), "LINES": str(rows), **(env or {})}
        if not full_env.get("NO_COLOR"):
            full_env.pop("NO_COLOR", None)  # set but empty (tests/conftest.py) still means "no colour" to some
        self.proc = PtyProcess.spawn(list(argv), env=full_env, cwd=str(cwd) if cwd else None, dimensions=(rows, cols))
        self._reader = threading.Thread(target=self._read, name="pty reader", daemon=True)
        self._reader.start()

    # -- output ------------------------------------------------------------------

    def _read(self) -> None:
        while True:
            try:
                data = self.proc.read(65536)
            except EOFError:
                break
            text = self._decoder.decode(data)
            with self._changed:
                self.raw += text
                self.stream.feed(text)
                self._changed.notify_all()
        with self._changed:
            self._eof = True
            self._changed.notify_all()

    def text(self) -> str:
        """The screen as it stands, one line per row, trailing blanks cut."""
        with self._changed:
            return "\n".join(line.rstrip() for line in self.screen.display)

    def scrollback(self) -> str:
        """Rows scrolled off the top, then the screen: what a person can scroll back to."""
        with self._changed:
            return self._scrollback_unlocked()

    def wait_until(self, check: Callable[[], bool], what: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        with self._changed:
            while not check():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"waited {timeout:g} s for {what}; the screen shows:\n{self._display()}")
                if self._eof and not check():
                    raise AssertionError(f"the program ended before {what}; the screen shows:\n{self._display()}")
                self._changed.wait(left)

    def _display(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def wait_for(self, pattern: str | re.Pattern[str], timeout: float = DEFAULT_TIMEOUT, *, everywhere: bool = False) -> str:
        """Wait until `pattern` (text or regex) is on the screen (or, with `everywhere`,
        anywhere in the scrollback); return the screen."""
        regex = pattern if isinstance(pattern, re.Pattern) else re.compile(re.escape(pattern))

        def found() -> bool:
            shown = self._scrollback_unlocked() if everywhere else self._display()
            return regex.search(shown) is not None

        self.wait_until(found, f"{pattern!r}", timeout)
        return self.text()

    def _scrollback_unlocked(self) -> str:
        width = self.screen.columns
        # pyte keeps a scrolled-off row as a sparse dict of columns.
        history = ["".join(row[x].data if x in row else " " for x in range(width)).rstrip() for row in self.screen.history.top]
        return "\n".join([*history, self._display()])

    # -- input ---------------------------------------------------------------------

    def type(self, text: str) -> None:
        self.proc.write(text.encode("utf-8"))

    def press(self, *keys: str) -> None:
        for key in keys:
            self.proc.write(KEYS[key].encode("ascii"))

    def resize(self, cols: int, rows: int) -> None:
        with self._changed:
            self.screen.resize(rows, cols)
        self.proc.setwinsize(rows, cols)

    # -- the process ---------------------------------------------------------------

    def signal(self, signum: int) -> None:
        self.proc.kill(signum)

    def wait_exit(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        """The exit status (128+N for a signal N), once the program has ended and its output is read."""
        self.wait_until(lambda: self._eof, "the program to end", timeout)
        deadline = time.monotonic() + timeout
        while self.proc.isalive():
            if time.monotonic() > deadline:
                raise AssertionError("the program closed its terminal but did not exit")
            self._reader.join(0.05)
        self.proc.wait()
        status = self.proc.exitstatus
        return status if status is not None else 128 + (self.proc.signalstatus or 0)

    def close(self) -> None:
        if self.proc.isalive():
            self.proc.terminate(force=True)
        self._reader.join(5)

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
