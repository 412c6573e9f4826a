"""Session tallies (core/tally.py) count exactly what counting the messages counts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from convo_tui.core.model import Message, Session
from convo_tui.core.serialize import session_from_record, session_to_record
from convo_tui.core.sources import parse_path
from convo_tui.core.stats import count_sessions
from convo_tui.core.tally import Tallied, TallyBuilder, count_tallies, session_tally, unpacked

from tests.paths import FIXTURES

# UTC, whole hours either side, and the zones a quarter hour or a half off them.
ZONES = [UTC, ZoneInfo("America/Los_Angeles"), ZoneInfo("Asia/Kolkata"), ZoneInfo("Asia/Kathmandu"), ZoneInfo("America/St_Johns")]


def fixture_sessions() -> list[Session]:
    """Every session the fixtures' transcripts hold (every source's usage shapes)."""
    sessions = []
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file():
            try:
                sessions += parse_path(path)
            except Exception:  # not a transcript (configs, expected outputs)
                continue
    return sessions


def tallied(session: Session, tally: str) -> Tallied:
    return Tallied(session.project, session.source, session.started_at or session.updated_at, tally)


def stamped(minutes: list[int | None], start: datetime = datetime(2026, 3, 7, 23, 0, tzinfo=UTC), **meta) -> Session:
    """A session whose messages were sent at these minutes past `start` (None: no
    time), each an assistant reply with usage, in the model of `meta`."""
    messages = [
        Message(
            id=str(i),
            role="assistant",
            text="ok",
            timestamp=start + timedelta(minutes=m) if m is not None else None,
            meta={"usage": {"input_tokens": 10 + i, "output_tokens": 3, "cache_read_input_tokens": i}},
        )
        for i, m in enumerate(minutes)
    ]
    return Session(id="s", source="claude-code", path="/p", title="t", messages=messages, project="demo", meta=meta)


@pytest.mark.parametrize("zone", ZONES, ids=str)
def test_counting_tallies_gives_what_counting_messages_gives(zone):
    sessions = fixture_sessions()
    assert sum(1 for s in sessions for m in s.messages if m.meta.get("usage")) > 20  # the test reads usage
    # The stats today read each session back from its stored record: the tally
    # is made from the session as the indexer holds it.
    stored = [session_from_record(session_to_record(s)) for s in sessions]
    assert count_tallies([tallied(s, session_tally(s)) for s in sessions], zone) == count_sessions(stored, zone)


@pytest.mark.parametrize("zone", ZONES, ids=str)
def test_messages_either_side_of_a_local_midnight_land_on_their_own_days(zone):
    # Every quarter hour from two hours before the zone's midnight into a new week
    # (Sunday to Monday) to two after, a minute either side of some, and messages with no time.
    midnight = datetime(2026, 3, 9, tzinfo=zone)
    minutes = [*range(0, 241, 15), 1, 14, 16, 119, 121, None, None]
    session = stamped(minutes, start=midnight - timedelta(hours=2), model="claude-x")
    assert count_tallies([tallied(session, session_tally(session))], zone) == count_sessions([session], zone)


def test_a_session_read_in_parts_tallies_as_one_read_whole():
    whole = stamped([0, 5, 20, 400, None], model="claude-x")
    first, second = stamped([0, 5, 20], model="claude-x"), stamped([400, None], model="claude-x")
    second.messages = [*whole.messages[3:]]
    builder = TallyBuilder()
    builder.add(first)
    builder.add(second)
    assert sorted(unpacked(builder.packed()), key=str) == sorted(unpacked(session_tally(whole)), key=str)


def test_a_tally_is_small():
    session = stamped(list(range(0, 120)), model="claude-x")  # two hours of replies: eight quarter hours
    assert len(unpacked(session_tally(session))) == 8


@pytest.mark.parametrize(
    "tally",
    [
        "",
        "not json",
        "{}",
        "[[1]]",
        "[0, [], [[0, 1, 2]]]",  # a row of neither shape
        '[0, ["m"], [[0, 1, 1, 1, 1, 1, 1, 1, 1]]]',  # a model it does not name
        '[0, ["m"], [[0, 0, 1, 1, 1, 1, 1, 1, "x"]]]',
        '[0, ["m"], [["0", 1]]]',
    ],
)
def test_what_is_not_a_tally_is_told(tally):
    with pytest.raises(ValueError):
        count_tallies([Tallied("p", "claude-code", None, tally)])


def test_half_a_second_before_a_midnight_counts_on_its_own_day_before_1970_too():
    session = stamped([0], start=datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=UTC), model="m")
    stats = count_tallies([tallied(session, session_tally(session))], UTC)
    assert stats == count_sessions([session], UTC)
    assert stats.by_day["1969-12-31"].messages == 1 and "1970-01-01" not in stats.by_day
