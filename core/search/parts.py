"""Part hits (thinking, a tool's input or output: keyword-only points) on their
turn's card: the turn they belong to, and the few lines around the match."""

from __future__ import annotations

from collections.abc import Sequence

from convo_tui.core.hits import Hit
from convo_tui.core.index.points import turn_key
from convo_tui.core.search.request import TEXT_FIELDS
from convo_tui.core.store.base import Cond, Filter, Scored, Store

PART_WINDOW = 240


def around_match(hit: Hit, text: str) -> Hit:
    """A part's text cut to the window around its first matching word (a tool
    output can be thousands of characters; the card shows a line or two)."""
    if not hit.part_text or len(hit.part_text) <= PART_WINDOW:
        return hit
    lowered = hit.part_text.casefold()
    spots = [lowered.find(word) for word in text.casefold().split() if word]
    at = min((spot for spot in spots if spot >= 0), default=0)
    start = max(0, at - PART_WINDOW // 4)
    piece = hit.part_text[start : start + PART_WINDOW]
    hit.part_text = ("…" if start else "") + piece + ("…" if start + PART_WINDOW < len(hit.part_text) else "")
    return hit


def part_turns(store: Store, turns: Sequence[Scored], messages: Sequence[Scored]) -> list[Scored]:
    """The turns of part hits (thinking, tool input or output: keyword-only
    points) that the query did not return itself, so that merge folds each
    part into its turn's card; a turn takes its best part's score (and, like
    any turn hit, the turn bonus)."""
    have = {t.payload.get("key") for t in turns}  # a meaning hit's payload may hold little more (page.py)
    wanted: dict[str, float] = {}
    for m in messages:
        p = m.payload
        key = turn_key(p.get("session_id", ""), p.get("turn_index", -1))
        if p.get("part") and key not in have and p.get("turn_index", -1) >= 0:
            wanted[key] = max(wanted.get(key, 0.0), m.score)
    if not wanted:
        return []
    found = store.scroll(Filter(must=(Cond("key", any=tuple(wanted)), Cond("visible", value=True))), fields=TEXT_FIELDS)
    out = []
    stages: dict[str, str] = {}
    for m in messages:
        p = m.payload
        if p.get("part"):
            stages.setdefault(turn_key(p.get("session_id", ""), p.get("turn_index", -1)), m.stage)
    for point in found:
        key = point.payload.get("key", "")
        if key not in wanted:
            continue  # another key's point whose facet collides (edge_facets.py)
        point.score = wanted[key]
        point.stage = stages.get(key, "keyword")
        out.append(point)
    return out
