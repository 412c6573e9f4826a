"""A source file's bytes as text: the size limit, decoding, what is binary, and
reading it whole (`read_text`) or a line at a time (`read_lines`).

Every reader gets its text from here, so every format refuses the same files
for the same one-line reasons and reports replaced bytes and dropped NUL lines
the same way (as notes its sessions carry: `decode_notes`).
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

from convo_tui.core.errors import ParseError

# Hard ceiling for one source file; larger files are refused with a clear reason
# instead of being loaded whole into memory.
MAX_FILE_BYTES = 256 * 1024 * 1024
HEAD_BYTES = 64 * 1024


SQLITE_MAGIC = b"SQLite format 3\x00"
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
# Warnings about the bytes of the file being parsed (replaced invalid bytes):
# `parse_path` hands them to the sessions it returns.
decode_notes: ContextVar[list[str] | None] = ContextVar("decode_notes", default=None)


def is_sqlite(head: bytes) -> bool:
    return head.startswith(SQLITE_MAGIC)


def decode(raw: bytes) -> tuple[str, int]:
    """Text of a source file and how many invalid bytes were replaced.

    A UTF-8 BOM is skipped; a UTF-16 BOM means UTF-16 (Windows tools write it);
    anything else is UTF-8 with undecodable bytes replaced, so one bad byte
    never costs the whole session.
    """
    if raw.startswith(UTF16_BOMS):
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
    if raw.startswith(UTF16_BOMS):
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
    if data.startswith(UTF16_BOMS) or is_sqlite(data):
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
        if head.startswith(UTF16_BOMS):  # Windows tools' UTF-16: rare and small, read whole
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
    target = notes if notes is not None else decode_notes.get()
    if target is not None and note not in target:
        target.append(note)


def precheck(path: Path) -> None:
    try:
        size = path.stat().st_size
        with open(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError as exc:
        raise ParseError(path, f"cannot read: {exc.strerror or exc}") from None
    _check_bytes(path, size, head)
