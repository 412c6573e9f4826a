"""Opening another tool's SQLite database without ever changing or locking it.

The tool may be running: its database is opened read-only and `immutable`, so
SQLite takes no lock and writes no journal. When a write-ahead log sits beside
it (the tool is running, or was killed), the newest messages live in that log;
then the database and its log are copied into a private temporary folder and
the copy is read, so the original is still never touched.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from convo_tui.core.errors import ParseError


def _text(raw: bytes) -> str:
    """Text read from another tool's database: invalid UTF-8 replaced, never an error."""
    return raw.decode("utf-8", errors="replace")


def _uri(path: Path, immutable: bool) -> str:
    flags = "mode=ro&immutable=1" if immutable else "mode=ro"
    return f"file:{quote(str(path.absolute()))}?{flags}"


@contextmanager
def open_readonly(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to `path` (or to a private copy with its WAL applied)."""
    wal = path.with_name(path.name + "-wal")
    scratch: str | None = None
    try:
        if wal.is_file() and wal.stat().st_size > 0:
            scratch = tempfile.mkdtemp(prefix="convo-tui-sqlite-")
            copy = Path(scratch) / path.name
            shutil.copyfile(path, copy)
            shutil.copyfile(wal, Path(scratch) / wal.name)
            connection = sqlite3.connect(str(copy))  # our copy: SQLite may apply the log to it
        else:
            connection = sqlite3.connect(_uri(path, immutable=True), uri=True)
    except (OSError, sqlite3.Error) as exc:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
        raise ParseError(path, f"cannot open SQLite database: {exc}") from None
    connection.text_factory = _text
    try:
        yield connection
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # a damaged schema can fail to decode
        raise ParseError(path, f"damaged or unreadable SQLite database ({exc})") from None
    finally:
        connection.close()
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)


def tables(connection: sqlite3.Connection) -> set[str]:
    rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {str(row[0]) for row in rows}


def sniff_tables(path: Path, head: str, wanted: set[str]) -> bool:
    """True for a SQLite file holding every table in `wanted` (read from the file's schema)."""
    return _schema_holds(path, head, lambda connection: wanted <= tables(connection))


def columns(connection: sqlite3.Connection, table: str) -> set[str]:
    """The column names of `table` (empty when there is no such table)."""
    rows = connection.execute("SELECT name FROM pragma_table_info(?)", (table,)).fetchall()
    return {str(row[0]) for row in rows}


def sniff_columns(path: Path, head: str, wanted: dict[str, set[str]]) -> bool:
    """True for a SQLite file whose tables hold at least the columns `wanted` names."""
    return _schema_holds(path, head, lambda c: all(needed <= columns(c, table) for table, needed in wanted.items()))


def _schema_holds(path: Path, head: str, check: Callable[[sqlite3.Connection], bool]) -> bool:
    """`check` on the schema of a SQLite file, opened read-only and without a lock; False when it is none."""
    if not head.startswith("SQLite format 3") or path.is_dir():
        return False
    try:
        connection = sqlite3.connect(_uri(path, immutable=True), uri=True)
    except sqlite3.Error:
        return False
    connection.text_factory = _text
    try:
        return check(connection)
    except (sqlite3.Error, UnicodeDecodeError):
        return False
    finally:
        connection.close()
