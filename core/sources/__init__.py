"""Transcript formats: recognise a file from its content and parse it.

Each format is a module here exposing `FORMAT`, a `SourceFormat`. `parse_path`
is the one entry point the rest of the program uses; it raises only
`core.errors.ParseError`.
"""

from __future__ import annotations

import codecs
import importlib
import stat
from collections.abc import Callable
from contextvars import ContextVar
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
_MODULES = [
    "cursor_db",
    "opencode",
    "chat_threads",
    "claude_code",
    "codex",
    "cline",
    "copilot",
    "gemini",
    "specstory",
    "aider",
    "claude_ai",
    "chatgpt",
    "openai_log",
    "cursor",
]


def reader_modules() -> list[str]:
    """The readers' module names, in the order their sniffers are asked."""
    return list(_MODULES)


def formats() -> list[SourceFormat]:
    return [importlib.import_module(f"convo_tui.core.sources.{name}").FORMAT for name in _MODULES]


def format_by_name(name: str) -> SourceFormat | None:
    return next((f for f in formats() if f.name == name), None)


SQLITE_MAGIC = b"SQLite format 3\x00"
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
# Warnings about the bytes of the file being parsed (replaced invalid bytes):
# `parse_path` hands them to the sessions it returns.
_decode_notes: ContextVar[list[str] | None] = ContextVar("decode_notes", default=None)


def is_sqlite(head: bytes) -> bool:
    return head.startswith(SQLITE_MAGIC)


def decode(raw: bytes) -> tuple[str, int]:
    """Text of a source file and how many invalid bytes were replaced.

    A UTF-8 BOM is skipped; a UTF-16 BOM means UTF-16 (Windows tools write it);
    anything else is UTF-8 with undecodable bytes replaced, so one bad byte
    never costs the whole session.
    """
    if raw.startswith(_UTF16_BOMS):
        text = raw.decode("utf-16", errors="replace")
        return text, text.count("\ufffd")
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    try:
        return raw.decode("utf-8"), 0
    except UnicodeDecodeError:
        pass
    bad = 0

    def count(exc: UnicodeError) -> tuple[str, int]:
        nonlocal bad
        assert isinstance(exc, UnicodeDecodeError)
        bad += exc.end - exc.start
        return "\ufffd", exc.end

    codecs.register_error("convo_tui_count", count)
    return raw.decode("utf-8", errors="convo_tui_count"), bad


def read_head(path: Path) -> str:
    """The first bytes of a file, decoded leniently, for sniffing only."""
    with open(path, "rb") as handle:
        raw = handle.read(HEAD_BYTES)
    if raw.startswith(_UTF16_BOMS):
        return drop_nul_lines(raw[: len(raw) // 2 * 2].decode("utf-16", errors="replace"))[0]
    text = raw.decode("utf-8-sig", errors="replace")
    return text if is_sqlite(raw) else drop_nul_lines(text)[0]


def looks_binary(data: bytes) -> bool:
    """A file's first bytes are not text. A NUL byte alone does not say so: one
    line may carry one, and a file cut short by a crash may end in a run of them.
    Binary is what, NULs aside, is mostly not text (invalid UTF-8, control bytes)."""
    if b"\x00" not in data:
        return False
    rest = data.replace(b"\x00", b"")
    if not rest.strip():
        return True  # nothing but NULs (and blanks)
    text = rest.decode("utf-8", errors="replace")
    odd = sum(1 for ch in text if ch == "\ufffd" or (ch < " " and ch not in "\t\n\r\f\v"))
    return odd * 20 > len(text)  # more than one character in twenty


def drop_nul_lines(text: str) -> tuple[str, int, int]:
    """`text` without its lines that hold a NUL, how many, and the first one's number."""
    if "\x00" not in text:
        return text, 0, 0
    kept: list[str] = []
    dropped = first = 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if "\x00" in line:
            dropped += 1
            first = first or number
        else:
            kept.append(line)
    return "".join(kept), dropped, first


def _check_bytes(path: Path, size: int, data: bytes) -> None:
    """The one-line reasons a file is not a transcript, judged from its first bytes."""
    if size > MAX_FILE_BYTES and not is_sqlite(data):  # a database is queried, never loaded whole
        raise ParseError(path, f"file too large ({size // (1024 * 1024)} MB, limit {MAX_FILE_BYTES // (1024 * 1024)} MB)")
    if data.startswith(_UTF16_BOMS) or is_sqlite(data):
        return  # UTF-16 text and SQLite databases hold NUL bytes by nature
    if size == 0 or not data.strip():
        raise ParseError(path, "empty file")
    if looks_binary(data[:HEAD_BYTES]):
        raise ParseError(path, "binary file (contains NUL bytes)")


def read_text(path: str | Path) -> str:
    """A whole source file as text, or a ParseError saying why it is not one.

    Invalid bytes are replaced, and counted in a warning the parsed sessions carry.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
        raw = path.read_bytes() if 0 < size <= MAX_FILE_BYTES else b""
    except OSError as exc:
        raise ParseError(path, f"cannot read: {exc.strerror or exc}") from None
    _check_bytes(path, size, raw)
    text, bad = decode(raw)
    notes = _decode_notes.get()
    if bad:
        where = text.index("\ufffd")
        line = text.count("\n", 0, where) + 1
        _note(notes, f"{path}:{line}: {bad} invalid byte{'s' * (bad != 1)} replaced (not valid UTF-8)")
    text, dropped, first = drop_nul_lines(text)
    if dropped:
        _note(notes, f"{path}:{first}: {dropped} line{'s' * (dropped != 1)} holding NUL bytes dropped")
    if not text.strip():
        raise ParseError(path, "binary file (contains NUL bytes)" if dropped else "empty file")
    return text


def _note(notes: list[str] | None, note: str) -> None:
    if notes is not None and note not in notes:
        notes.append(note)


def _precheck(path: Path) -> None:
    try:
        size = path.stat().st_size
        with open(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError as exc:
        raise ParseError(path, f"cannot read: {exc.strerror or exc}") from None
    _check_bytes(path, size, head)


def _kind(path: Path) -> str:
    """ "file", "dir", or a one-line reason this path cannot be read (never opens it)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "no such file or folder"
    except NotADirectoryError:
        return "no such file or folder"
    except PermissionError:
        return "cannot read: permission denied (on the file or a folder above it)"
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISFIFO(mode):
        return "not a regular file (a named pipe)"
    if stat.S_ISSOCK(mode):
        return "not a regular file (a socket)"
    return "not a regular file (a device)"


def detect(path: str | Path) -> SourceFormat | None:
    """The format of a file or thread folder, judged from its content."""
    path = Path(path)
    kind = _kind(path)
    if kind not in ("file", "dir"):
        return None  # a pipe or device is never opened: reading it could block forever
    try:
        head = "" if kind == "dir" else read_head(path)
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
    kind = _kind(path)
    if kind not in ("file", "dir"):
        raise ParseError(path, kind)
    if kind == "file":
        _precheck(path)  # empty / binary / too large: one clear reason before sniffing
    fmt = detect(path)
    if fmt is None:
        raise ParseError(path, "unknown format (not a transcript convo-tui can read)")
    notes: list[str] = []
    token = _decode_notes.set(notes)
    try:
        sessions = fmt.parse(path)
    except ParseError:
        raise
    except RecursionError:
        raise ParseError(path, "structure nested too deeply") from None
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, ArithmeticError) as exc:
        # A parser bug or a shape we did not foresee: still one line, never a traceback.
        raise ParseError(path, f"unexpected {fmt.label} structure ({type(exc).__name__}: {exc})") from None
    finally:
        _decode_notes.reset(token)
    if not sessions:
        raise ParseError(path, f"no messages found in this {fmt.label}")
    for session in sessions:
        session.warnings[:0] = [note for note in notes if note not in session.warnings]
    return sessions
