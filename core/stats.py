"""Counts over the indexed sessions: per project, per source and per week.

Sessions and messages are counted for every source; tokens only where the
source file records them, read from `Message.meta` (see `message_tokens`).
A group with no recorded tokens says so (`has_tokens` False) instead of
showing a misleading zero.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any

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


@dataclass
class Stats:
    total: Count = field(default_factory=Count)
    by_project: dict[str, Count] = field(default_factory=dict)
    by_source: dict[str, Count] = field(default_factory=dict)
    by_week: dict[str, Count] = field(default_factory=dict)  # "2026-W01" (ISO week), or UNDATED

    def projects(self) -> list[tuple[str, Count]]:
        """Most sessions first."""
        return sorted(self.by_project.items(), key=lambda item: (-item[1].sessions, item[0]))

    def sources(self) -> list[tuple[str, Count]]:
        return sorted(self.by_source.items(), key=lambda item: (-item[1].sessions, item[0]))

    def weeks(self) -> list[tuple[str, Count]]:
        """Newest week first, undated last."""
        dated = sorted(((k, v) for k, v in self.by_week.items() if k != UNDATED), reverse=True)
        return [*dated, (UNDATED, self.by_week[UNDATED])] if UNDATED in self.by_week else dated


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def message_tokens(meta: dict[str, Any]) -> Tokens | None:
    """The usage a parser kept in `Message.meta`, or None when the source recorded none.

    Understood shapes: an Anthropic/OpenAI style `usage` object (`input_tokens`,
    `output_tokens`, plus Anthropic's `cache_creation_input_tokens` and
    `cache_read_input_tokens`, or OpenAI's `prompt_tokens`/`completion_tokens`),
    and the `tokens_input`/`tokens_output` columns of conversation exports.
    Anthropic counts cached prompt tokens apart from `input_tokens`, so they are
    added; OpenAI's `cached_input_tokens` and `reasoning_output_tokens` are
    already inside `input_tokens` and `output_tokens`, so they are not.
    """
    usage = meta.get("usage")
    if isinstance(usage, dict):
        prompt = sum(
            _int(usage.get(key))
            for key in ("input_tokens", "prompt_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        answer = _int(usage.get("output_tokens")) + _int(usage.get("completion_tokens"))
        if prompt or answer:
            return Tokens(prompt, answer)
    if "tokens_input" in meta or "tokens_output" in meta:
        prompt, answer = _int(meta.get("tokens_input")), _int(meta.get("tokens_output"))
        if prompt or answer:
            return Tokens(prompt, answer)
    return None


def week_of(stamp: datetime | None, zone: tzinfo | None = None) -> str:
    """ISO week ("2026-W01") in `zone` (the local zone when None)."""
    if stamp is None:
        return UNDATED
    year, week, _ = stamp.astimezone(zone).isocalendar()
    return f"{year}-W{week:02d}"


def _group(groups: dict[str, Count], key: str) -> Count:
    return groups.setdefault(key, Count())


def count_sessions(sessions: Iterable[Session], zone: tzinfo | None = None) -> Stats:
    """One pass over whole sessions. Messages are those of the conversation (no
    virtual, sub-agent or error messages), counted in the week they were sent;
    a session counts in the week it started."""
    stats = Stats()
    for session in sessions:
        project, source = session.project or "(no project)", session.source or "?"
        started = session.started_at or session.updated_at
        session_week = week_of(started, zone)
        for count in (stats.total, _group(stats.by_project, project), _group(stats.by_source, source)):
            count.sessions += 1
        _group(stats.by_week, session_week).sessions += 1
        for message in session.messages:
            tokens = message_tokens(message.meta)
            groups = [stats.total, stats.by_project[project], stats.by_source[source]]
            week = _group(stats.by_week, week_of(message.timestamp, zone) if message.timestamp else session_week)
            if message.is_conversation:
                for count in (*groups, week):
                    count.messages += 1
            if tokens is not None:  # a sub-agent's usage is still usage
                for count in (*groups, week):
                    count.tokens.add(tokens)
                    count.has_tokens = True
    return stats
