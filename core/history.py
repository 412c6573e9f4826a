"""Queries the user settled on, kept across runs (up on an empty query walks them).

A small JSON file in the user's data dir, beside the index folder (so
`CONVO_TUI_INDEX_DIR`, which the tests point at a temp dir, moves it too). A
missing or unreadable file is an empty history: losing it loses nothing else.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from convo_tui.core.settings import default_index_dir

HISTORY_CAP = 500


def state_dir() -> Path:
    """The user's data dir for convo-tui (the index folder's parent)."""
    return default_index_dir().parent


def _write_private(path: Path, text: str) -> None:
    """Write atomically, owner only: queries can hold what the user searched for."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temp = path.with_suffix(path.suffix + ".tmp")
    temp.write_text(text, encoding="utf-8")
    os.chmod(temp, 0o600)
    os.replace(temp, path)


class QueryHistory:
    """Oldest first, no duplicates (a repeated query moves to the end), at most HISTORY_CAP."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or state_dir() / "history.json"
        self.queries: list[str] = self._load()

    def _load(self) -> list[str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        if not isinstance(data, list):
            return []
        return [q for q in data if isinstance(q, str) and q.strip()][-HISTORY_CAP:]

    def add(self, query: str) -> bool:
        """Remember `query`; True when the history changed."""
        query = query.strip()
        if not query or (self.queries and self.queries[-1] == query):
            return False
        if query in self.queries:
            self.queries.remove(query)
        self.queries.append(query)
        del self.queries[:-HISTORY_CAP]
        return True

    def save(self) -> str | None:
        """Write the file; the reason as text when it could not be written (never raises)."""
        try:
            _write_private(self.path, json.dumps(self.queries, ensure_ascii=False, indent=0))
        except OSError as exc:
            return f"{self.path}: {exc.strerror or exc}"
        return None


class ViewState:
    """The app's remembered view choices (compact list, sort order): a tiny JSON object."""

    SORTS = ("relevance", "date")

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or state_dir() / "view.json"
        data = self._load()
        self.compact = data.get("compact") is True
        sort = data.get("sort")
        self.sort = sort if sort in self.SORTS else "relevance"

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def save(self) -> str | None:
        try:
            _write_private(self.path, json.dumps({"compact": self.compact, "sort": self.sort}))
        except OSError as exc:
            return f"{self.path}: {exc.strerror or exc}"
        return None
