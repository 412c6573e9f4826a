"""Transcript formats: recognise a file from its content and parse it.

Each format is a module here exposing `FORMAT`, a `SourceFormat`. `parse_path`
is the one entry point the rest of the program uses; it raises only
`core.errors.ParseError`.
"""

from __future__ import annotations

import codecs
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from convo_tui.core.errors import ParseError
from convo_tui.core.model import Session

# Hard ceiling for one source file; larger files are refused with a clear reason
# instead of being loaded whole into memory.
MAX_FILE_BYTES = 256 * 1024 * 1024
HEAD_BYTES = 64 * 1024


@dataclass(frozen=True)
class SourceFormat:
    name: str  # stable id stored in the index: "cursor", "chat-thread", ...
    label: str  # what the user sees: "Cursor agent transcript"
    sniff: Callable[[Path, str], bool]  # (path, decoded head of the file) -> is it mine?
    parse: Callable[[Path], list[Session]]
    version: int = 1  # bump when the parser's output changes: the index re-parses


# Most specific first: the first format whose sniff accepts a file wins.
_MODULES = ["chat_threads", "claude_code", "specstory", "chatgpt", "openai_log", "cursor"]


def formats() -> list[SourceFormat]:
    return [importlib.import_module(f"convo_tui.core.sources.{name}").FORMAT for name in _MODULES]


def format_by_name(name: str) -> SourceFormat | None:
    return next((f for f in formats() if f.name == name), None)


def read_head(path: Path) -> str:
    """The first bytes of a file, decoded leniently, for sniffing only."""
    with open(path, "rb") as handle:
        raw = handle.read(HEAD_BYTES)
    return raw.decode("utf-8", errors="replace")


def _check_bytes(path: Path, size: int, data: bytes, *, whole: bool) -> None:
    """The one-line reasons a file is not a transcript, judged from `data`:
    the first HEAD_BYTES before sniffing, or the whole file before parsing."""
    if size > MAX_FILE_BYTES:  # first: a file this large was not read into `data`
        raise ParseError(path, f"file too large ({size // (1024 * 1024)} MB, limit {MAX_FILE_BYTES // (1024 * 1024)} MB)")
    if size == 0 or not data.strip():
        raise ParseError(path, "empty file")
    if b"\x00" in data[:HEAD_BYTES]:
        raise ParseError(path, "binary file (contains NUL bytes)")
    try:  # a head may end inside a multi-byte character: only a whole file is final
        codecs.getincrementaldecoder("utf-8")().decode(data, final=whole)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ParseError(path, f"invalid UTF-8 at byte {exc.start}", line=line) from None


def read_text(path: str | Path) -> str:
    """A whole source file as text, or a ParseError saying why it is not one."""
    path = Path(path)
    try:
        size = path.stat().st_size
        raw = path.read_bytes() if 0 < size <= MAX_FILE_BYTES else b""
    except OSError as exc:
        raise ParseError(path, f"cannot read: {exc.strerror or exc}") from None
    _check_bytes(path, size, raw, whole=True)
    return raw.decode("utf-8-sig")


def _precheck(path: Path) -> None:
    try:
        size = path.stat().st_size
        with open(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError as exc:
        raise ParseError(path, f"cannot read: {exc.strerror or exc}") from None
    _check_bytes(path, size, head, whole=False)


def detect(path: str | Path) -> SourceFormat | None:
    """The format of a file or thread folder, judged from its content."""
    path = Path(path)
    try:
        head = "" if path.is_dir() else read_head(path)
    except OSError:
        return None
    for fmt in formats():
        try:
            if fmt.sniff(path, head):
                return fmt
        except (OSError, ValueError):
            continue
    return None


def parse_path(path: str | Path) -> list[Session]:
    """Every session in a file or thread folder. Raises ParseError only."""
    path = Path(path)
    if not path.exists():
        raise ParseError(path, "no such file or folder")
    if path.is_file():
        _precheck(path)  # empty / binary / too large: one clear reason before sniffing
    fmt = detect(path)
    if fmt is None:
        raise ParseError(path, "unknown format (not a transcript convo-tui can read)")
    try:
        sessions = fmt.parse(path)
    except ParseError:
        raise
    except RecursionError:
        raise ParseError(path, "structure nested too deeply") from None
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
        # A parser bug or a shape we did not foresee: still one line, never a traceback.
        raise ParseError(path, f"unexpected {fmt.label} structure ({type(exc).__name__}: {exc})") from None
    if not sessions:
        raise ParseError(path, f"no messages found in this {fmt.label}")
    return sessions
