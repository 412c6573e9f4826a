"""The page of cards, reading whole payloads only for the hits that can reach it.

A meaning query asks the store for the few indexed fields fusion needs
(`LIGHT_FIELDS`): Edge answers it from the dense shard alone, where reading
each hit's whole payload from the main shard by id cost 58 us a hit at a
million messages (about 220 hits a hybrid search: 13 ms of its 106). Fusion
scores every hit from those fields; the cards need their texts. Here the
best-scored partial hits are read, the cards merged from the hits read, and
more are read until no unread hit could change the page.

An unread hit changes nothing on the page when its score is under the page's
last card (a card's score is its best point's) and it is in none of the
page's sessions (cards fold and collapse only within a session): the page is
then the one merging every hit would give.
"""

from __future__ import annotations

from collections.abc import Sequence

from convo_tui.core.hits import Hit
from convo_tui.core.search.merge import TURN_BONUS, merge
from convo_tui.core.store.base import Scored, Store

# What fusion reads of a meaning hit (all indexed, so Edge's dense shard holds them):
# `key` to find a turn, `session_id` for the page's sessions, `lang` to align languages.
LIGHT_FIELDS = ("key", "session_id", "level", "lang")
# Partial hits read at first, per card of the page.
FIRST_READ = 2


def page(
    store: Store,
    turns: list[Scored],
    messages: list[Scored],
    query_dense: Sequence[float] | None,
    window: int,
    *,
    floor: float,
    words: Sequence[str],
) -> list[Hit]:
    """merge()'s `window` cards of `turns` and `messages`, some of whose payloads are partial."""
    assert TURN_BONUS == 1.0  # a turn card's score is its point's: the bound below relies on it
    unread = sorted((p for p in (*turns, *messages) if p.partial), key=lambda p: -p.score)
    wanted = unread[: FIRST_READ * window]
    while True:
        _read(store, wanted)
        taken = {id(p) for p in wanted}
        unread = [p for p in unread if id(p) not in taken]
        whole_turns = [t for t in turns if not t.partial]
        whole_messages = [m for m in messages if not m.partial]
        hits = merge(whole_turns, whole_messages, query_dense, window, floor=floor, words=words)
        last = hits[-1].score if len(hits) >= window else floor
        sessions = {hit.session_id for hit in hits}
        reach = [p for p in unread if p.score >= last or p.payload.get("session_id") in sessions]
        if not reach:
            return hits
        # Every hit that could reach the page, and at least as many more as were read.
        wanted = list({id(p): p for p in (*reach, *unread[: len(taken)])}.values())


def _read(store: Store, points: Sequence[Scored]) -> None:
    """Whole payloads for these points. A point the store no longer holds
    (deleted between the search and this read) stays partial: never on the page."""
    if not points:
        return
    found = store.payloads([p.id for p in points])
    for point in points:
        payload = found.get(point.id)
        if payload is not None:
            point.payload, point.partial = payload, False
