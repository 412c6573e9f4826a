"""What search and the index hand to the faces (CLI, app): plain records.

Kept apart from search.py so the app can render results without importing the
search machinery (and its model) at start-up.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Literal

HitKind = Literal["turn", "message"]


@dataclass
class Hit:
    """One search result card: a turn (or a lone message) of a session.

    `score` is the relevance in 0..1 that ordered the results and that a card
    and the CLI show (core/search/fusion.py calibrates it per model, so 0.8 means the
    same with MiniLM and e5); `similarity` is the raw dense cosine, kept in the
    JSON for agents that want it (0 when the model did not see the text).
    """

    kind: HitKind
    session_id: str
    session_title: str
    project: str
    source: str
    path: str
    turn_index: int
    message_ids: list[str]
    matched_message_ids: list[str]
    similarity: float
    score: float
    timestamp: datetime | None
    user_text: str
    ai_text: str
    tools: list[str] = field(default_factory=list)
    # Set when the words matched only a keyword-indexed part of the turn:
    # "thinking", "tool input" or "tool output", and that part's matching text.
    part: str = ""
    part_text: str = ""
    # Which stage of the ranking placed this card: "keyword" (its words),
    # "meaning" (the dense model), "both", "exact" (it holds every identifier
    # of the query verbatim), "fuzzy" (typo-tolerant words); "" for a listing
    # without words (filters only).
    stage: str = ""
    # The machine the session was read from over SSH (core/remote/); "" for this one.
    machine: str = ""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["timestamp"] = self.timestamp.isoformat() if self.timestamp else None
        return data


@dataclass
class SessionSummary:
    """A session as the sessions list shows it, read from the index."""

    id: str
    title: str
    project: str
    source: str
    path: str
    message_count: int
    turn_count: int
    started_at: datetime | None
    updated_at: datetime | None
    description: str = ""
    starred: bool = False
    tags: list[str] = field(default_factory=list)
    # The source file is gone; the index still holds the whole session.
    orphaned: bool = False
    machine: str = ""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("started_at", "updated_at"):
            value = getattr(self, key)
            data[key] = value.isoformat() if value else None
        return data


@dataclass
class PageEntry:
    """One row of the sessions list: a project's header (grouped by project) or a session."""

    header: str | None = None
    count: int = 0  # the header's sessions
    summary: SessionSummary | None = None

    def to_json(self) -> dict[str, Any]:
        return {"header": self.header, "count": self.count, "summary": self.summary.to_json() if self.summary else None}


@dataclass
class SessionPage:
    """A window of the sessions list in one ordering (Engine.session_page), with its counts.

    `total`: rows of the whole list (headers included); `matched`: sessions in it
    (the filters applied); `everything`: sessions in the index; `starred`: starred ones."""

    offset: int
    total: int
    matched: int
    everything: int
    starred: int
    entries: list[PageEntry] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = {k: getattr(self, k) for k in ("offset", "total", "matched", "everything", "starred")}
        data["entries"] = [entry.to_json() for entry in self.entries]
        return data
