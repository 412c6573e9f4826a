"""What the sessions browser remembers while the app runs (the list itself is the
engine's: Engine.session_page sorts, groups and filters it)."""

from __future__ import annotations

from dataclasses import dataclass

SORTS = ("date", "title", "project")


@dataclass
class BrowserPrefs:
    """How the sessions browser was last left: kept by the app while it runs."""

    sort: str = "date"
    starred_only: bool = False
