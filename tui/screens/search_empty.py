"""What the search screen says when a search finds nothing: whether the
filters alone match, and whether waiting for the index can help."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from convo_tui.core.search.query import unknown_machine, unknown_project, unknown_source, unknown_tag
from convo_tui.tui.query_line import describe_filters

if TYPE_CHECKING:
    from convo_tui.tui.index_state import IndexState
    from convo_tui.tui.messages import SearchOutcome

DENSE_MODES = ("hybrid", "semantic")


def nothing_found(
    outcome: SearchOutcome,
    state: IndexState,
    *,
    waiting: bool,
    projects: Iterable[str] = (),
    machines: Iterable[str] = (),
    tags: Iterable[str] = (),
) -> str:
    """Why nothing was found, and whether waiting can help (`waiting`: sessions
    may still appear, an index run is reading them; `projects`: the indexed ones;
    `machines`: the settings' remote machines; `tags`: the tags sessions have)."""
    if outcome.filters_match is False:
        wrong = unknown_source(outcome.query) or unknown_machine(outcome.query, machines) or unknown_tag(outcome.query, tags)
        if wrong is None and not waiting:
            wrong = unknown_project(outcome.query, projects)
        if wrong is not None:
            return f"Nothing found: {wrong}"
        text = f"No conversation matches {describe_filters(outcome.query)}."
        if waiting:
            text += "\nSessions are still being read: results refresh as they become searchable."
        else:
            text += "\nLoosen a filter (F1 lists them)."
        return text
    text = "No matching conversations."
    if outcome.mode != "fuzzy":
        text += " Misspelt? Fuzzy mode (F2) matches near spellings."
    share = state.meaning_share
    if not waiting and state.readiness is not None and not state.readiness.sessions:
        text = "Nothing is indexed yet: F5 reads the transcripts of every tool found."
    elif waiting:
        text = "No matching conversations yet: sessions are still being read; results refresh as they become searchable."
    elif outcome.mode in DENSE_MODES and state.embedding and share is not None and share < 1:
        text = (
            f"No matching conversations yet: search by meaning covers {int(share * 100)}% of texts so far; "
            "results refresh as it grows."
        )
    return text
