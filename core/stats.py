"""Counts over the indexed sessions: per project, source, model, week and day.

Sessions and messages are counted for every source; tokens only where the
source file records them, read from `Message.meta` (core/cost/usage.py).
A group with no recorded tokens says so (`has_tokens` False) instead of
showing a misleading zero. Each group also keeps its usage per model
(`Count.models`), which the faces price with the user's price table
(core/cost/): the counts do not depend on anyone's prices.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any

from convo_tui.core.cost.pricing import NO_MODEL
from convo_tui.core.cost.usage import Usage, message_model, message_usage
from convo_tui.core.model import Session

UNDATED = "undated"


@dataclass
class Tokens:
    """Token usage as the source logged it; cached prompt tokens are part of `input`."""

    input: int = 0
    output: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output

    def add(self, other: Tokens) -> None:
        self.input += other.input
        self.output += other.output


@dataclass
class Count:
    sessions: int = 0
    messages: int = 0
    tokens: Tokens = field(default_factory=Tokens)
    has_tokens: bool = False  # at least one message of the group recorded its usage
    models: dict[str, Usage] = field(default_factory=dict)  # usage per model as logged ("" = not named)

    def add_usage(self, model: str, usage: Usage) -> None:
        self.tokens.add(Tokens(usage.prompt, usage.output))
        self.has_tokens = True
        self.models.setdefault(model, Usage()).add(usage)


@dataclass
class Stats:
    total: Count = field(default_factory=Count)
    by_project: dict[str, Count] = field(default_factory=dict)
    by_source: dict[str, Count] = field(default_factory=dict)
    by_week: dict[str, Count] = field(default_factory=dict)  # "2026-W01" (ISO week), or UNDATED
    by_day: dict[str, Count] = field(default_factory=dict)  # "2026-01-05" (local date), or UNDATED
    # Sessions and messages that recorded usage, per model as logged (NO_MODEL when the source named none).
    by_model: dict[str, Count] = field(default_factory=dict)

    def projects(self) -> list[tuple[str, Count]]:
        """Most sessions first."""
        return sorted(self.by_project.items(), key=lambda item: (-item[1].sessions, item[0]))

    def sources(self) -> list[tuple[str, Count]]:
        return sorted(self.by_source.items(), key=lambda item: (-item[1].sessions, item[0]))

    def models(self) -> list[tuple[str, Count]]:
        """Most tokens first."""
        return sorted(self.by_model.items(), key=lambda item: (-item[1].tokens.total, item[0]))

    def days(self) -> list[tuple[str, Count]]:
        """Oldest day first, undated left out (the calendar)."""
        return sorted((k, v) for k, v in self.by_day.items() if k != UNDATED)

    def weeks(self) -> list[tuple[str, Count]]:
        """Newest week first, undated last."""
        dated = sorted(((k, v) for k, v in self.by_week.items() if k != UNDATED), reverse=True)
        return [*dated, (UNDATED, self.by_week[UNDATED])] if UNDATED in self.by_week else dated


def message_tokens(meta: dict[str, Any]) -> Tokens | None:
    """The usage a parser kept in `Message.meta` as prompt and answer tokens, or None
    when the source recorded none. Cached prompt tokens (read or written) are part
    of the prompt, reasoning part of the answer, whatever the provider's shape
    (core/cost/usage.py reads them)."""
    usage = message_usage(meta)
    return Tokens(usage.prompt, usage.output) if usage is not None else None


def day_of(stamp: datetime | None, zone: tzinfo | None = None) -> str:
    """Calendar date ("2026-01-05") in `zone` (the local zone when None)."""
    return stamp.astimezone(zone).date().isoformat() if stamp is not None else UNDATED


def week_of(stamp: datetime | None, zone: tzinfo | None = None) -> str:
    """ISO week ("2026-W01") in `zone` (the local zone when None)."""
    if stamp is None:
        return UNDATED
    year, week, _ = stamp.astimezone(zone).isocalendar()
    return f"{year}-W{week:02d}"


def count_group(groups: dict[str, Count], key: str) -> Count:
    """The count of `key` in `groups`, empty the first time it is asked for."""
    return groups.setdefault(key, Count())


def count_sessions(sessions: Iterable[Session], zone: tzinfo | None = None) -> Stats:
    """One pass over whole sessions. Messages are those of the conversation (no
    virtual, sub-agent or error messages), counted in the week and day they were
    sent; a session counts in the week and day it started. Usage counts wherever
    it was recorded (a sub-agent's usage is still usage)."""
    stats = Stats()
    for session in sessions:
        project, source = session.project or "(no project)", session.source or "?"
        started = session.started_at or session.updated_at
        session_week, session_day = week_of(started, zone), day_of(started, zone)
        for count in (stats.total, count_group(stats.by_project, project), count_group(stats.by_source, source)):
            count.sessions += 1
        count_group(stats.by_week, session_week).sessions += 1
        count_group(stats.by_day, session_day).sessions += 1
        models_used: set[str] = set()
        for message in session.messages:
            usage = message_usage(message.meta)
            groups = [stats.total, stats.by_project[project], stats.by_source[source]]
            stamp = message.timestamp
            groups.append(count_group(stats.by_week, week_of(stamp, zone) if stamp else session_week))
            groups.append(count_group(stats.by_day, day_of(stamp, zone) if stamp else session_day))
            if message.is_conversation:
                for count in groups:
                    count.messages += 1
            if usage is None:
                continue
            model = message_model(message, session)
            by_model = count_group(stats.by_model, model or NO_MODEL)
            by_model.messages += 1
            if model not in models_used:
                models_used.add(model)
                by_model.sessions += 1
            for count in (*groups, by_model):
                count.add_usage(model, usage)
    return stats
