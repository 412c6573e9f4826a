"""Fuzzy filter and project grouping for the sessions browser (rapidfuzz)."""

from __future__ import annotations

from dataclasses import dataclass

from convo_tui.core.hits import SessionSummary
from convo_tui.core.redact import display
from rapidfuzz import fuzz, process, utils

SCORE_CUTOFF = 60


def fuzzy_filter(sessions: list[SessionSummary], text: str, limit: int = 200) -> list[SessionSummary]:
    """Sessions whose title or project match `text`, best first; all of them when empty."""
    if not text.strip():
        return list(sessions)
    choices = {index: f"{display(s.title)} {s.project}" for index, s in enumerate(sessions)}
    found = process.extract(
        text, choices, scorer=fuzz.WRatio, processor=utils.default_process, limit=limit, score_cutoff=SCORE_CUTOFF
    )
    return [sessions[index] for _, _, index in found]


def group_by_project(sessions: list[SessionSummary]) -> list[tuple[str, list[SessionSummary]]]:
    """Projects ordered by their newest session; sessions newest first within each."""
    groups: dict[str, list[SessionSummary]] = {}
    for summary in sessions:
        groups.setdefault(summary.project or "(no project)", []).append(summary)

    def newest(summary: SessionSummary) -> float:
        stamp = summary.updated_at or summary.started_at
        return stamp.timestamp() if stamp else 0.0

    for members in groups.values():
        members.sort(key=lambda s: (-newest(s), (s.title or "").casefold(), s.id))  # ties in a fixed order
    return sorted(groups.items(), key=lambda item: (-max(newest(s) for s in item[1]), item[0].casefold()))


SORTS = ("date", "title", "project")


def _newest(summary: SessionSummary) -> float:
    stamp = summary.updated_at or summary.started_at
    return stamp.timestamp() if stamp else 0.0


def sort_sessions(sessions: list[SessionSummary], sort: str) -> list[SessionSummary]:
    """Newest first ("date"), A to Z by title ("title"); "project" is grouping, see group_by_project."""
    if sort == "title":
        return sorted(sessions, key=lambda s: ((s.title or "").casefold(), -_newest(s), s.id))
    return sorted(sessions, key=lambda s: (-_newest(s), (s.title or "").casefold(), s.id))  # ties in a fixed order


def only_starred(sessions: list[SessionSummary], starred: bool) -> list[SessionSummary]:
    return [s for s in sessions if s.starred] if starred else list(sessions)


@dataclass
class BrowserPrefs:
    """How the sessions browser was last left: kept by the app while it runs."""

    sort: str = "date"
    starred_only: bool = False
