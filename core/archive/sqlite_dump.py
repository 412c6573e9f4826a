"""Another tool's SQLite database, archived as the sessions' own rows.

Cursor's `state.vscdb` can weigh gigabytes, most of it not chats, and changes
in place every few seconds while Cursor runs; a copy of the file per change
would not deduplicate. The archive keeps instead a dump of the rows the
reader reads (the tables and row filters are in core/archive/members.py): one
JSON line per row in rowid order, read in one transaction. Unchanged rows are
unchanged lines, so a new dump shares almost every chunk with the previous one.

`restore` builds a database from a dump with the same tables, columns, rowids
and values, which the format's own reader opens like the original: a better
reader next year re-reads it. A dump is data (an imported archive may come
from anywhere): table and column names are quoted, never run as SQL.

The database is read as core/sources/_sqlite.py reads it: read-only and
`immutable` (no lock, no journal), or from a private copy when a write-ahead
log sits beside it.
"""

from __future__ import annotations

import base64
import json
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from convo_tui.core.errors import ConvoError

MAGIC = "convo-tui-sqlite-dump"
VERSION = 1
# Filters per table: None keeps every row, else an SQL condition written here (never from data).
Tables = dict[str, str | None]


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@contextmanager
def _open(path: Path, scratch: Path) -> Iterator[sqlite3.Connection]:
    wal = path.with_name(path.name + "-wal")
    if wal.is_file() and wal.stat().st_size > 0:
        folder = Path(tempfile.mkdtemp(prefix="sqlite-", dir=scratch))
        try:
            shutil.copyfile(path, folder / path.name)
            shutil.copyfile(wal, folder / wal.name)
            with closing(sqlite3.connect(str(folder / path.name))) as db:
                yield db
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    else:
        uri = f"file:{quote(str(path.absolute()))}?mode=ro&immutable=1"
        with closing(sqlite3.connect(uri, uri=True)) as db:
            yield db


def _text(raw: bytes) -> Any:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return {"$t": base64.b64encode(raw).decode("ascii")}  # TEXT that is not UTF-8: kept byte for byte


def _value(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"$b": base64.b64encode(value).decode("ascii")}
    return value


def dump(path: Path, tables: Tables, out: Path, scratch: Path) -> None:
    """The rows of `tables` in `path` as JSON lines into `out` (a new private file)."""
    try:
        with _open(path, scratch) as db, open(out, "x", encoding="utf-8") as handle:
            db.text_factory = _text
            db.execute("BEGIN")  # one snapshot for every table
            present = {str(row[0]) for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            header: dict[str, Any] = {MAGIC: VERSION, "tables": {}}
            wanted = [name for name in tables if name in present]
            for name in wanted:
                columns = [str(row[1]) for row in db.execute(f"PRAGMA table_info({quoted(name)})")]
                header["tables"][name] = columns
            handle.write(json.dumps(header, ensure_ascii=False) + "\n")
            for name in wanted:
                where = tables[name]
                rows = db.execute(
                    f"SELECT rowid, * FROM {quoted(name)}" + (f" WHERE {where}" if where else "") + " ORDER BY rowid"
                )
                for row in rows:
                    handle.write(json.dumps({"t": name, "r": [_value(v) for v in row]}, ensure_ascii=False) + "\n")
    except sqlite3.Error as exc:
        raise ConvoError(f"{path}: cannot read the SQLite database ({exc})") from None


def _restored(value: Any) -> tuple[str, Any]:
    """A placeholder and its parameter for one dumped value."""
    if isinstance(value, dict):
        if "$b" in value:
            return "?", base64.b64decode(value["$b"])
        if "$t" in value:
            return "CAST(? AS TEXT)", base64.b64decode(value["$t"])
        raise ValueError("unknown value tag")
    if value is None or (isinstance(value, (str, int, float)) and not isinstance(value, bool)):
        return "?", value
    raise ValueError(f"unexpected value {type(value).__name__}")


def restore(lines: Iterator[str], target: Path) -> None:
    """A database at `target` (a new file) holding a dump's tables and rows."""
    try:
        header = json.loads(next(lines))
        if not isinstance(header, dict) or header.get(MAGIC) != VERSION or not isinstance(header.get("tables"), dict):
            raise ValueError("not a convo-tui SQLite dump")
        tables: dict[str, list[str]] = {}
        for name, columns in header["tables"].items():
            if not (isinstance(name, str) and isinstance(columns, list) and all(isinstance(c, str) for c in columns)):
                raise ValueError("bad table list")
            tables[name] = columns
        with closing(sqlite3.connect(target)) as db:
            for name, columns in tables.items():
                db.execute(f"CREATE TABLE {quoted(name)} ({', '.join(quoted(c) for c in columns)})")
            for line in lines:
                record = json.loads(line)
                name, row = record["t"], record["r"]
                columns = tables[name]
                if len(row) != len(columns) + 1:
                    raise ValueError(f"a row of {name} has {len(row) - 1} values for {len(columns)} columns")
                marks, values = zip(*(_restored(v) for v in row), strict=True)
                names = ", ".join(["rowid", *(quoted(c) for c in columns)])
                db.execute(f"INSERT INTO {quoted(name)} ({names}) VALUES ({', '.join(marks)})", values)
            db.commit()
    except (StopIteration, ValueError, KeyError, TypeError, sqlite3.Error) as exc:
        raise ConvoError(f"cannot rebuild {target.name} from its archived rows ({exc})") from None
