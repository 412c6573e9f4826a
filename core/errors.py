"""The project's own errors: each renders as one line a user can act on."""

from __future__ import annotations

from pathlib import Path

from convo_tui.core.unicode import visible_controls


def shown(value: object, limit: int = 120) -> str:
    """A value (from a transcript, a query, a request) as part of a one-line
    message: control characters escaped (`\\x0a`), cut at `limit` characters."""
    text = visible_controls(str(value))
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ConvoError(Exception):
    """Base class for expected problems (shown as one line, no traceback)."""


def one_line(text: str) -> str:
    """`text` on one line, whole: a reason may quote the file (SQLite's "malformed
    database schema (...)" names a table of it, line breaks and all), and a line
    break or a terminal escape of a file must not reach the user's terminal."""
    return visible_controls(" ".join(text.split()))


class ParseError(ConvoError):
    """A source file could not be read as a transcript.

    The only exception the parser API lets escape; `str()` names the file, the
    line where that helps, and the reason.
    """

    def __init__(self, path: str | Path, reason: str, line: int | None = None):
        self.path = str(path)
        self.reason = one_line(reason)
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        path = visible_controls(self.path)  # a file's name: spelled out, never obeyed by the terminal
        where = f"{path}:{self.line}" if self.line is not None else path
        return f"{where}: {self.reason}"


class ConfigError(ConvoError):
    """The settings file is unreadable or has a bad value."""


class QueryError(ConvoError):
    """A search query has a malformed filter (or a value out of range)."""

    def __init__(self, message: str):
        super().__init__(shown(message, 400))  # the query's own text may hold a newline


class AmbiguousSessionId(ConvoError):
    """An id prefix that starts more than one indexed session id (the message lists some)."""


class IndexUnavailable(ConvoError):
    """The index cannot be opened or used as asked (locked, other model, ...)."""


class IndexBusy(IndexUnavailable):
    """Another open handle (process, or this one) holds the index lock (core/store/lock.py)."""

    def __init__(self, message: str, pid: int | None):
        super().__init__(message)
        self.pid = pid


class DiskFull(IndexUnavailable):
    """Too little free space to open or write the index safely; nothing was changed."""

    def __init__(self, folder: str | Path, free: int, doing: str = ""):
        self.folder = str(folder)
        self.free = free
        need = f" to {doing}" if doing else ""
        super().__init__(
            f"disk full: {free // (1 << 20)} MB free in {self.folder}; free some space{need} and try again "
            "(the index was left as it was)"
        )
