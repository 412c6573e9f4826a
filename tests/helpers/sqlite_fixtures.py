"""SQLite fixtures are kept as hand-written SQL (reviewable text); tests build the
databases in a temporary folder: every `<name>.sql` becomes the database `<name>`."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path


def build_tree(source: Path, destination: Path) -> Path:
    """Copy `source` to `destination`, turning each `*.sql` into the database it describes."""
    shutil.copytree(source, destination, dirs_exist_ok=True)
    for script in sorted(destination.rglob("*.sql")):
        database = script.with_suffix("")
        connection = sqlite3.connect(database)
        try:
            connection.executescript(script.read_text(encoding="utf-8"))
            connection.commit()
        finally:
            connection.close()
        script.unlink()
    return destination
