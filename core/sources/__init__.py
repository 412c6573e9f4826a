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

import functools
import importlib
import stat
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from convo_tui.core.errors import ParseError
from convo_tui.core.model import Session
from convo_tui.core.sources import controls, surrogates
from convo_tui.core.sources._drift import collecting
from convo_tui.core.sources.text import (  # re-exported: the readers take their text from here
    HEAD_BYTES,
    MAX_FILE_BYTES,
    SQLITE_MAGIC,
    decode,
    decode_notes,
    drop_nul_lines,
    is_sqlite,
    looks_binary,
    precheck,
    read_head,
    read_lines,
    read_text,
)

__all__ = [
    "HEAD_BYTES",
    "MAX_FILE_BYTES",
    "SQLITE_MAGIC",
    "ParsedFile",
    "SessionPart",
    "SourceFormat",
    "decode",
    "decode_notes",
    "detect",
    "detect_format",
    "drop_nul_lines",
    "format_by_name",
    "formats",
    "is_sqlite",
    "looks_binary",
    "parse_file",
    "parse_path",
    "precheck",
    "read_head",
    "read_lines",
    "read_text",
    "reader_modules",
    "stream_path",
]


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
    return _by_name().get(name)


@functools.cache
def _by_name() -> dict[str, SourceFormat]:
    """The readers by name (an index run asks for every manifest entry's)."""
    return {f.name: f for f in reversed(_loaded())}  # the first of a name wins, as a search in order did


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
        precheck(path)  # empty / binary / too large: one clear reason before sniffing
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
    replaced = 0
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
        replaced += surrogates.repair(part.session)  # the part's messages, and the title known so far
        controls.repair(part.session)
        if part.last and replaced:
            part.session.warnings.append(surrogates.note(path, replaced))
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
    token = decode_notes.set(notes)
    try:
        with collecting() as unknown:
            sessions = fmt.parse(path)
    except ParseError:
        raise
    except _PARSER_SLIPS as exc:
        raise _parser_failure(path, fmt, exc) from None
    finally:
        decode_notes.reset(token)
    if not sessions:
        raise ParseError(path, f"no messages found in this {fmt.label}")
    for session in sessions:
        replaced = surrogates.repair(session)
        controls.repair(session)
        own = [surrogates.note(path, replaced)] if replaced else []
        session.warnings[:0] = [note for note in [*notes, *own] if note not in session.warnings]
    return ParsedFile(fmt, sessions, dict(unknown))
