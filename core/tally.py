"""A session's share of the stats, small enough to keep with its row.

The stats count every message of every session by project, source, model, week
and day. Counted from whole transcripts that meant reading a million messages
back out of the index at a million messages (54 s for `convo-tui stats`). The
indexer knows each message as it reads it, so it keeps, with the session point,
what the counting needs: how many messages, and how much usage per model, fell
in each quarter hour of UTC time. Every time zone's offset is a whole number of
quarter hours, so a quarter hour lies within one local day and week wherever the
stats are read, and counting the tallies gives exactly what counting the
messages gives (tests/unit/test_tally.py compares the two in several zones).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import TYPE_CHECKING, Any

from convo_tui.core.cost.usage import message_model, message_usage
from convo_tui.core.model import Session

if TYPE_CHECKING:
    from convo_tui.core.stats import Stats

SLOT_SECONDS = 15 * 60

# A session's entries, one per (slot, model) its messages fall in:
# [slot, model, messages, used, input, cache_read, cache_write, cache_write_1h, output]
# `slot` is the message's UTC time // SLOT_SECONDS, None when it has no time (it
# counts in the session's week and day); `model` as message_model names it, None
# for messages that recorded no usage; `messages` the conversation messages,
# `used` those that recorded usage, then their usage summed.
#
# Packed (what the session point and the sessions list keep; 42,000 sessions'
# tallies are held by every process that lists sessions): [base, models, rows],
# each row [slot - base, messages] for messages without usage or
# [slot - base, model's place in models, messages, used, *usage]; slot None stays None.
_KEY_FIELDS = 2
_COUNTS = 7


class TallyBuilder:
    """Adds up a session's messages, part by part (a huge transcript is read in parts)."""

    def __init__(self) -> None:
        self._entries: dict[tuple[int | None, str | None], list[int]] = {}

    def add(self, session: Session) -> None:
        """The messages of `session` (the whole session, or the part just read)."""
        for message in session.messages:
            usage = message_usage(message.meta)
            stamp = message.timestamp
            slot = int(stamp.timestamp() // SLOT_SECONDS) if stamp is not None else None
            model = message_model(message, session) if usage is not None else None
            entry = self._entries.get((slot, model))
            if entry is None:
                entry = self._entries[(slot, model)] = [0] * _COUNTS
            if message.is_conversation:
                entry[0] += 1
            if usage is not None:
                entry[1] += 1
                entry[2] += usage.input
                entry[3] += usage.cache_read
                entry[4] += usage.cache_write
                entry[5] += usage.cache_write_1h
                entry[6] += usage.output

    def packed(self) -> str:
        """The tally as the session point and the sessions list keep it (compact JSON)."""
        slots = [slot for slot, _ in self._entries if slot is not None]
        base = min(slots, default=0)
        models: list[str] = []
        places: dict[str, int] = {}
        rows: list[list[int | None]] = []
        for (slot, model), counts in self._entries.items():
            offset = slot - base if slot is not None else None
            if model is None:
                rows.append([offset, counts[0]])
                continue
            if model not in places:
                places[model] = len(models)
                models.append(model)
            rows.append([offset, places[model], *counts])
        return json.dumps([base, models, rows], ensure_ascii=False, separators=(",", ":"))


def session_tally(session: Session) -> str:
    builder = TallyBuilder()
    builder.add(session)
    return builder.packed()


@dataclass(frozen=True)
class Tallied:
    """One session as the stats count it: where it belongs, when it started, its tally."""

    project: str
    source: str
    started: datetime | None  # started, else last updated (as count_sessions takes it)
    tally: str
    id: str = ""


def unpacked(tally: str) -> list[list[Any]]:
    """A packed tally's entries; ValueError when it is not one."""
    try:
        base, models, rows = json.loads(tally)
        entries: list[list[Any]] = []
        for row in rows:
            slot = row[0] + base if row[0] is not None else None
            if len(row) == 2:
                if type(row[1]) is not int:
                    raise ValueError("not a count")
                entries.append([slot, None, row[1], 0, 0, 0, 0, 0, 0])
            elif len(row) == _COUNTS + 2 and all(type(value) is int for value in row[2:]):
                entries.append([slot, str(models[row[1]]), *row[2:]])
            else:
                raise ValueError("not a tally row")
    except (TypeError, ValueError, IndexError, KeyError) as exc:
        raise ValueError(f"not a tally: {exc}") from exc
    return entries


def count_tallies(sessions: Iterable[Tallied], zone: tzinfo | None = None, unreadable: list[str] | None = None) -> Stats:
    """The stats of `sessions`, the same as core.stats.count_sessions over their messages.
    A session whose tally cannot be read raises ValueError, or with `unreadable`
    is left out and its id added there.

    The entries are first summed by (project, source, week, day, model): adding
    usage to the six groups it counts in was most of the time when done an entry
    at a time (a million messages make 190k entries with usage; far fewer cells)."""
    # Here, not at the top: the indexer and every search import this module for the
    # tallies it makes, and a cold search loads nothing it does not use.
    from convo_tui.core.cost.pricing import NO_MODEL
    from convo_tui.core.cost.usage import Usage
    from convo_tui.core.stats import UNDATED, Stats, count_group, day_of, week_of

    stats = Stats()
    places: dict[int, tuple[str, str]] = {}  # slot -> (week, day): sessions share their slots

    def place(slot: int) -> tuple[str, str]:
        found = places.get(slot)
        if found is None:
            stamp = datetime.fromtimestamp(slot * SLOT_SECONDS, UTC)
            found = places[slot] = (week_of(stamp, zone), day_of(stamp, zone))
        return found

    cells: dict[tuple[str, str, str, str, str | None], list[int]] = {}
    for session in sessions:
        try:
            entries = unpacked(session.tally)
        except ValueError:
            if unreadable is None:
                raise
            unreadable.append(session.id)
            continue
        project, source = session.project or "(no project)", session.source or "?"
        started = session.started
        session_week, session_day = place(int(started.timestamp() // SLOT_SECONDS)) if started else (UNDATED, UNDATED)
        for count in (stats.total, count_group(stats.by_project, project), count_group(stats.by_source, source)):
            count.sessions += 1
        count_group(stats.by_week, session_week).sessions += 1
        count_group(stats.by_day, session_day).sessions += 1
        models_used: set[str] = set()
        for slot, model, *counts in entries:
            week, day = place(slot) if slot is not None else (session_week, session_day)
            if counts[1]:  # messages with usage: the session counts once for each model
                model = model or ""
                if model not in models_used:
                    models_used.add(model)
                    count_group(stats.by_model, model or NO_MODEL).sessions += 1
            key = (project, source, week, day, model)
            cell = cells.get(key)
            if cell is None:
                cells[key] = counts
            else:
                for i, value in enumerate(counts):
                    cell[i] += value
    for (project, source, week, day, model), (messages, used, *usage) in cells.items():
        groups = (
            stats.total,
            count_group(stats.by_project, project),
            count_group(stats.by_source, source),
            count_group(stats.by_week, week),
            count_group(stats.by_day, day),
        )
        if messages:
            for count in groups:
                count.messages += messages
        if not used:
            continue
        model = model or ""
        by_model = count_group(stats.by_model, model or NO_MODEL)
        by_model.messages += used
        spent = Usage(*usage)
        for count in (*groups, by_model):
            count.add_usage(model, spent)
    return stats
