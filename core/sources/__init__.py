"""Transcript formats: recognise a file from its content and parse it.

Each format is a module here exposing `FORMAT`, a `SourceFormat`. `parse_path`
is the one entry point the rest of the program uses (`parse_file` also says
which parts of the file the reader did not know); it raises only
`core.errors.ParseError`. `stream_path` is the same for the indexer: a format
that can read its file as a stream (`SourceFormat.stream`: JSON lines read one
at a time, never whole) yields a long session in parts as it reads it, so a
huge transcript costs the memory of one part; the others yield each session
whole, as `parse_path` returns it. docs/ARCHITECTURE.md ("Adding a source")
lists what a new format needs.
"""

from __future__ import annotations

import codecs
import functools
import importlib
import stat
from collections import Counter
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from convo_tui.core.errors import ParseError
from convo_tui.core.model import Session
from convo_tui.core.sources._drift import collecting

# Hard ceiling for one source file; larger files are refused with a clear reason
# instead of being loaded whole into memory.
MAX_FILE_BYTES = 256 * 1024 * 1024
HEAD_BYTES = 64 * 1024


@dataclass
class SessionPart:
    """A piece of one session as a stream reads it.

    `session` carries what is known of the session so far (id, project, title)
    and only this part's `messages`, numbered in the whole session. A session is
    cut only where a user's message follows an answer (a turn boundary), so the
    parts' turns, one after the other, are the session's turns. `last` marks its
    final part, whose `session` holds the final title, cwd and warnings.
    """

    session: Session
    first_message: int  # position of messages[0] in the whole session
    last: bool


@dataclass(frozen=True)
class SourceFormat:
    name: str  # stable id stored in the index: "cursor", "chat-thread", ...
    label: str  # what the user sees: "Cursor agent transcript"
    sniff: Callable[[Path, str], bool]  # (path, decoded head of the file) -> is it mine?
    parse: Callable[[Path], list[Session]]
    version: int = 1  # bump when the parser's output changes: the index re-parses
    # (path, characters a part may reach before it is cut) -> the parts of the file's
    # one session, read as a stream. None: the format is parsed whole.
    stream: Callable[[Path, int], Iterator[SessionPart]] | None = None
    # What the README's table of sources says (docs/sources_table.py writes it from these):
    tool: str = ""  # the product: "GitHub Copilot CLI"
    versions: str = ""  # the versions whose files the reader and its fixture follow
    places: str = ""  # where discovery looks on Linux / macOS / Windows (or "add it to `sources`")
    resume: str = "none"  # the command that reopens a session, as the user would type it
    keeps: str = ""  # what is read: words, thinking, tool calls, tokens, ...


# Most specific first: the first format whose sniff accepts a file wins
# (tests/unit/test_sources_detect.py runs every fixture through `detect`).
_MODULES = [
    "cursor_db",
    "cursor_cli",
    "goose",
    "crush",
    "opencode",
    "chat_threads",
    "openhands",
    "copilot_cli",
    "antigravity",
    "gemini_stream",
    "claude_stream",
    "managed_agents",
    "pi",
    "qwen_code",
    "factory_droid",
    "kimi_cli",
    "kiro",
    "claude_code",
    "codex",
    "cline",
    "copilot",
    "gemini",
    "amp",
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
    return list(_loaded())


@functools.cache
def _loaded() -> tuple[SourceFormat, ...]:
    """The readers, imported once (`detect` asks them all for every file)."""
    return tuple(importlib.import_module(f"convo_tui.core.sources.{name}").FORMAT for name in _MODULES)


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
    if bad:
        _note_bad(path, text, bad, None)
    text, dropped, first = drop_nul_lines(text)
    if dropped:
        _tell(f"{path}:{first}: {dropped} line{'s' * (dropped != 1)} holding NUL bytes dropped", None)
    if not text.strip():
        raise ParseError(path, "binary file (contains NUL bytes)" if dropped else "empty file")
    return text


def read_lines(path: str | Path, notes: list[str] | None = None) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line of a source file, read as a stream.

    The same checks and decoding as `read_text` (size limit, empty, binary,
    BOM, invalid bytes replaced and lines holding a NUL dropped, each counted
    in a note given to `notes` or to the sessions `parse_path` returns), but
    one line in memory at a time: a 200 MB log costs what its longest line
    costs. Lines end at "\n" only.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
        handle = open(path, "rb")  # noqa: SIM115 (closed by the with below: a generator holds it)
    except OSError as exc:
        raise ParseError(path, f"cannot read: {exc.strerror or exc}") from None
    with handle:
        head = handle.read(HEAD_BYTES)
        _check_bytes(path, size, head)
        if head.startswith(_UTF16_BOMS):  # Windows tools' UTF-16: rare and small, read whole
            handle.seek(0)
            text, bad = decode(handle.read())
            if bad:
                _note_bad(path, text, bad, notes)
            yield from enumerate(text.splitlines(), start=1)
            return
        handle.seek(len(codecs.BOM_UTF8) if head.startswith(codecs.BOM_UTF8) else 0)
        bad_total, first_bad, dropped, first_dropped, blank = 0, 0, 0, 0, True
        for number, raw in enumerate(handle, start=1):
            if b"\x00" in raw:
                dropped += 1
                first_dropped = first_dropped or number
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                line, bad = decode(raw)
                bad_total += bad
                first_bad = first_bad or number
            line = line.rstrip("\r\n")
            if blank and line.strip():
                blank = False
            yield number, line
        if blank:
            raise ParseError(path, "binary file (contains NUL bytes)" if dropped else "empty file")
        if bad_total:
            _tell(f"{path}:{first_bad}: {bad_total} invalid byte{'s' * (bad_total != 1)} replaced (not valid UTF-8)", notes)
        if dropped:
            _tell(f"{path}:{first_dropped}: {dropped} line{'s' * (dropped != 1)} holding NUL bytes dropped", notes)


def _note_bad(path: Path, text: str, bad: int, notes: list[str] | None) -> None:
    where = text.index("\ufffd")
    line = text.count("\n", 0, where) + 1
    _tell(f"{path}:{line}: {bad} invalid byte{'s' * (bad != 1)} replaced (not valid UTF-8)", notes)


def _tell(note: str, notes: list[str] | None) -> None:
    target = notes if notes is not None else _decode_notes.get()
    if target is not None and note not in target:
        target.append(note)


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


@dataclass
class ParsedFile:
    """The sessions of one file and the parts of it its reader did not know
    (`"event:foo.bar"` -> how many times), for `convo-tui sources`."""

    format: SourceFormat
    sessions: list[Session]
    unknown: dict[str, int] = field(default_factory=dict)


def detect_format(path: Path) -> SourceFormat:
    """The format of a file or folder to parse, or the ParseError saying why it is none."""
    kind = _kind(path)
    if kind not in ("file", "dir"):
        raise ParseError(path, kind)
    if kind == "file":
        _precheck(path)  # empty / binary / too large: one clear reason before sniffing
    fmt = detect(path)
    if fmt is None:
        raise ParseError(path, "unknown format (not a transcript convo-tui can read)")
    return fmt


def _parser_failure(path: Path, fmt: SourceFormat, exc: BaseException) -> ParseError:
    if isinstance(exc, RecursionError):
        return ParseError(path, "structure nested too deeply")
    # A parser bug or a shape we did not foresee: still one line, never a traceback.
    return ParseError(path, f"unexpected {fmt.label} structure ({type(exc).__name__}: {exc})")


_PARSER_SLIPS = (RecursionError, ValueError, TypeError, KeyError, AttributeError, IndexError, ArithmeticError)


def stream_path(
    path: str | Path, part_chars: int, fmt: SourceFormat | None = None, unknown: Counter[str] | None = None
) -> Iterator[SessionPart]:
    """Every session of a file or thread folder, in parts where its format can
    stream (sessions over `part_chars` characters are cut), else whole (one
    last part per session). Raises ParseError only, possibly after some parts.
    `fmt`: the file's format when the caller already detected it; `unknown`
    counts the parts of the file its reader did not know (format drift)."""
    path = Path(path)
    fmt = fmt or detect_format(path)
    if fmt.stream is None:
        parsed = _parse(path, fmt)
        if unknown is not None:
            unknown.update(parsed.unknown)
        for session in parsed.sessions:
            yield SessionPart(session, 0, last=True)
        return
    parts = fmt.stream(path, part_chars)
    yielded = False
    while True:
        seen: Counter[str] = Counter()
        try:
            with collecting() as seen:  # only while the reader runs: the caller's code between parts is not its
                part = next(parts)
        except StopIteration:
            if not yielded:
                raise ParseError(path, f"no messages found in this {fmt.label}") from None
            return
        except ParseError:
            raise
        except _PARSER_SLIPS as exc:
            raise _parser_failure(path, fmt, exc) from None
        finally:
            if unknown is not None:
                unknown.update(seen)
        yielded = True
        yield part


def parse_path(path: str | Path) -> list[Session]:
    """Every session in a file or thread folder. Raises ParseError only."""
    return parse_file(path).sessions


def parse_file(path: str | Path) -> ParsedFile:
    """Every session in a file or thread folder, and the parts its reader met and
    does not know (format drift). Raises ParseError only."""
    path = Path(path)
    return _parse(path, detect_format(path))


def _parse(path: Path, fmt: SourceFormat) -> ParsedFile:
    notes: list[str] = []
    token = _decode_notes.set(notes)
    try:
        with collecting() as unknown:
            sessions = fmt.parse(path)
    except ParseError:
        raise
    except _PARSER_SLIPS as exc:
        raise _parser_failure(path, fmt, exc) from None
    finally:
        _decode_notes.reset(token)
    if not sessions:
        raise ParseError(path, f"no messages found in this {fmt.label}")
    for session in sessions:
        session.warnings[:0] = [note for note in notes if note not in session.warnings]
    return ParsedFile(fmt, sessions, dict(unknown))
