"""Turn and message results -> result cards: turn bonus, folding, dedupe, top-k."""

from __future__ import annotations

import operator
from collections.abc import Sequence

from convo_tui.core.hits import Hit
from convo_tui.core.index.keyword_parts import part_at
from convo_tui.core.index.points import from_epoch
from convo_tui.core.store.base import Scored
from convo_tui.core.unicode import without_controls
from rapidfuzz import fuzz

# Turns are what a person wants to land on: between a turn and a lone message of
# the same relevance, the turn goes first (a tie-break, so a card's number stays
# the relevance it shows).
TURN_BONUS = 1.0
# Two cards of one session whose texts are at least this similar are one card.
DUPLICATE_RATIO = 92.0


def cosine(query: Sequence[float] | None, vector: Sequence[float] | None) -> float:
    """Cosine of two vectors, clamped to 0..1 (stored and query vectors are unit length)."""
    if not query or not vector:
        return 0.0
    dot: float = sum(map(operator.mul, query, vector))  # twice as fast as a generator; runs per card per keystroke
    return max(0.0, min(1.0, dot))


def query_cosine(query: Sequence[float] | None, point: Scored) -> float:
    """The point's cosine to the query: as this search measured it (meaning.py), or measured now."""
    if query and point.dense and point.cosine is not None:
        return point.cosine
    return cosine(query, point.dense)


def _card(point: Scored, kind: str, score: float, similarity: float, words: Sequence[str] = ()) -> Hit:
    """A result from a point. Its texts without terminal control: readers remove it
    (core/sources/controls.py), but an index built before they did still holds it."""
    p = point.payload
    part, part_text = "", ""
    if kind == "turn":
        user_text, ai_text = without_controls(p.get("user_text", "")), without_controls(p.get("ai_text", ""))
        matched: list[str] = []
    else:
        text = without_controls(p.get("text", ""))
        user_text, ai_text = (text, "") if p.get("role") == "user" else ("", text)
        matched = list(p.get("message_ids", []))
        if p.get("part"):  # the part the query's words matched in, for a packed point
            part, part_text = part_at(p, list(words))
    return Hit(
        kind=kind,  # type: ignore[arg-type]
        session_id=p.get("session_id", ""),
        session_title=without_controls(p.get("session_title", "")),
        project=p.get("project", ""),  # a folder's name, kept as it is (core/sources/controls.py)
        source=p.get("source", ""),
        path=p.get("path", ""),
        turn_index=int(p.get("turn_index", -1)),
        message_ids=list(p.get("message_ids", [])),
        matched_message_ids=matched,
        similarity=similarity,
        score=score,
        timestamp=from_epoch(p.get("timestamp")),
        user_text=user_text,
        ai_text=ai_text,
        tools=[without_controls(name) for name in p.get("tools", [])],
        part=part,
        part_text=without_controls(part_text),
        stage=point.stage,
        machine=str(p.get("machine", "") or ""),
    )


def _fold(card: Hit, other: Hit) -> None:
    for mid in other.matched_message_ids:
        if mid not in card.matched_message_ids:
            card.matched_message_ids.append(mid)
    card.similarity = max(card.similarity, other.similarity)
    if other.score > card.score:  # the card ranks where its best-placed part does
        card.score, card.stage = other.score, other.stage
    if other.part and not card.part:  # the best-ranked part a card matched through
        card.part, card.part_text = other.part, other.part_text


def merge(
    turns: Sequence[Scored],
    messages: Sequence[Scored],
    query_dense: Sequence[float] | None,
    limit: int,
    turn_bonus: float = TURN_BONUS,
    floor: float = 0.0,
    words: Sequence[str] = (),
) -> list[Hit]:
    """One ranked list of cards from both levels (scores of one mode, so comparable).

    Cards are sorted by `score`, the number they show; those under `floor` are dropped.
    `words`: the query's, to show the part of a packed point they matched in."""
    cards: dict[tuple[str, int], Hit] = {}
    by_message: dict[tuple[str, str], Hit] = {}
    for point in turns:
        card = _card(point, "turn", point.score * turn_bonus, query_cosine(query_dense, point))
        cards.setdefault((card.session_id, card.turn_index), card)
    for point in sorted(messages, key=lambda s: s.score, reverse=True):
        hit = _card(point, "message", point.score, query_cosine(query_dense, point), words)
        turn_card = cards.get((hit.session_id, hit.turn_index))
        if turn_card is not None and turn_card.kind == "turn":
            _fold(turn_card, hit)
            continue
        message_id = hit.message_ids[0] if hit.message_ids else ""
        same_message = by_message.get((hit.session_id, message_id))
        if same_message is not None:  # another chunk of a message already shown
            _fold(same_message, hit)
            continue
        by_message[(hit.session_id, message_id)] = hit
        cards[(hit.session_id, hit.turn_index, message_id)] = hit  # type: ignore[index]
    # Ties (equal fused ranks are common with RRF) break on similarity, then position,
    # so the same query always lists the same cards in the same order.
    # The floor applies after folding: a turn under it whose message matched shows as that turn.
    ranked = sorted(
        (c for c in cards.values() if c.score >= floor),
        key=lambda h: (-h.score, h.kind != "turn", -h.similarity, h.session_id, h.turn_index, h.message_ids),
    )
    return dedupe(ranked, limit)


def _text(hit: Hit) -> str:
    return f"{hit.user_text}\n{hit.ai_text}".strip().casefold()


def dedupe(ranked: list[Hit], limit: int | None = None) -> list[Hit]:
    """Collapse near-identical cards within a session (best-ranked one stays);
    the first `limit` cards kept (all without one).

    Once `limit` cards are kept, a later card matters only if it is the twin of
    one of them (it folds into it): it is compared with those alone (a hybrid
    query whose hits crowd into a few sessions compared hundreds of long texts,
    18 ms of a 60 ms search at 100k messages)."""
    kept: list[Hit] = []
    # Per session, its kept cards and their texts in the order they were kept:
    # a card is only ever compared with its own session's (a hybrid query at a
    # million messages ranks a few hundred candidates; comparing every pair
    # was 5 ms of its 100).
    sessions: dict[str, list[tuple[Hit, str]]] = {}
    for hit in ranked:
        full = limit is not None and len(kept) >= limit
        same = sessions.get(hit.session_id)
        if full and same is None:
            continue  # no kept card of its session to fold into
        text = _text(hit)
        twin = next((card for card, other in same or () if fuzz.ratio(other, text, score_cutoff=DUPLICATE_RATIO)), None)
        if twin is not None:
            _fold(twin, hit)
        elif not full:
            kept.append(hit)
            sessions.setdefault(hit.session_id, []).append((hit, text))
    return kept
