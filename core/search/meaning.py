"""The meaning half of a hybrid score: which cosine each candidate gets.

Three things happen between the dense model's raw cosines and fusion.py:

1. **Languages are searched apart and aligned.** A multilingual model scores a
   pair in one language higher than an equally relevant pair across languages
   (measured with e5 on the relevance set: for an English query, the median
   cosine of Chinese turns sits 0.02-0.03 under the English ones, so a
   Chinese answer that is the best Chinese turn still ranks behind a dozen
   English near-misses). Merging result lists from several languages is an
   old problem of cross-language retrieval (CLEF's multilingual tracks
   normalised each language's scores before merging); here each language
   partition (`lang` payload, core/index/points.py) gets its own dense query,
   and the other language's cosines are shifted by the gap between the two
   partitions' reference cosines (the median of each one's best
   ALIGN_TOP): the best answer of each language then competes on equal terms.
2. **A chunk covered by its turn's vector uses the turn's cosine.** Phase 2
   does not embed message text the turn's own vector already reads
   (core/index/points.py, EMBED_SELECTION); such a message is as close to the
   query as its turn.
3. **A text the model never saw has no cosine** (keyword-only parts: thinking,
   tool input and output; points phase 2 has not reached yet): it is left out
   of `cosines`, and fusion ranks it by its keyword relevance alone instead of
   reading "unseen" as "unrelated" (fusion.md, rule B).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from convo_tui.core.index.points import turn_key
from convo_tui.core.index.text_lang import LANG_CJK
from convo_tui.core.search.merge import cosine
from convo_tui.core.search.request import embedded, with_vectors
from convo_tui.core.store.base import Cond, Filter, Query, Scored, Store

# Candidates per language whose cosines make the partition's reference (their median).
ALIGN_TOP = 20
# A partition with fewer dense results than this gives no reference (no shift).
ALIGN_MIN = 3
# Align languages at all, and how much of the gap to close (the bench measures alternatives).
ALIGN_LANGUAGES = True
ALIGN_SHARE = 1.0


@dataclass
class DenseView:
    """What the dense side knows of a level's candidates: the cosine of each
    point the model has seen (or that inherits its turn's), after alignment,
    and which of them are in another language than the query."""

    cosines: dict[str, float]
    shift: float = 0.0
    other_language: set[str] = field(default_factory=set)


def partition_filters(flt: Filter) -> tuple[Filter, Filter]:
    """(CJK texts, every other text): points from before `lang` existed fall in the second."""
    cjk = flt.and_(Cond("lang", value=LANG_CJK))
    other = Filter(must=flt.must, must_not=(*flt.must_not, Cond("lang", value=LANG_CJK)))
    return cjk, other


def dense_queries(
    dense: Sequence[float], flt: Filter, depth: int, split: bool, fields: Sequence[str] | None = None
) -> list[Query]:
    """`fields`: the payload fields the hits need (None: whole payloads)."""
    parts = partition_filters(flt) if split else (flt,)
    return [Query(dense=dense, filter=embedded(part), limit=depth, with_dense=True, fields=fields) for part in parts]


def point_lang(point: Scored) -> str:
    """ "cjk", "latin", or "" for a point indexed before texts had a language (never shifted)."""
    return str(point.payload.get("lang") or "")


def reference(cosines: Sequence[float]) -> float | None:
    best = sorted(cosines, reverse=True)[:ALIGN_TOP]
    return statistics.median(best) if len(best) >= ALIGN_MIN else None


def language_shift(
    partitions: Sequence[Sequence[Scored]],
    query_dense: Sequence[float],
    query_lang: str,
    known: dict[str, float] | None = None,
) -> float:
    """How much to add to the cosines of texts in the other language than the
    query's: the gap between the two partitions' reference cosines, never below
    zero (a model scores text in another language lower; when that language's
    texts already score higher, lowering them would rank the query's own
    language's chatter, "继续", above the answer in the other one)."""
    if len(partitions) != 2:
        return 0.0
    known = {} if known is None else known
    cjk, latin = ([_cosine(known, query_dense, p) for p in part] for part in partitions)
    same, other = (cjk, latin) if query_lang == LANG_CJK else (latin, cjk)
    ref_same, ref_other = reference(same), reference(other)
    if ref_same is None or ref_other is None:
        return 0.0
    return max(0.0, (ref_same - ref_other) * ALIGN_SHARE)


def _cosine(known: dict[str, float], query_dense: Sequence[float], point: Scored) -> float:
    value = known.get(point.id)
    if value is None:
        value = known[point.id] = cosine(query_dense, point.dense)
    if point.dense is not None:
        point.cosine = value
    return value


def inherited_cosines(store: Store, query_dense: Sequence[float], points: Sequence[Scored]) -> dict[str, tuple[float, str]]:
    """Turn key -> (cosine, lang) for the turns of conversation chunks that have
    no vector of their own (covered by their turn's); one store query."""
    wanted = {
        turn_key(p.payload.get("session_id", ""), int(p.payload.get("turn_index", -1)))
        for p in points
        if p.dense is None and not p.payload.get("part") and int(p.payload.get("turn_index", -1)) >= 0
    }
    if not wanted:
        return {}
    found = with_vectors(store, query_dense, sorted(wanted))
    return {str(t.payload.get("key")): (cosine(query_dense, t.dense), point_lang(t)) for t in found if t.dense is not None}


def covered_messages(
    store: Store, query_dense: Sequence[float], flt: Filter, depth: int, found: Sequence[Scored]
) -> list[Scored]:
    """For a search of messages only (`role:`): the messages, matching `flt`, of
    the turns closest to the query that have no vector of their own (their
    turn's vector reads them), each carrying its turn's vector so that it is
    ranked and its card's similarity shown as its turn's."""
    turn_flt = Filter(must=(*(c for c in flt.must if c.key != "role"), Cond("level", value="turn")), must_not=flt.must_not)
    turns = store.query([Query(dense=query_dense, filter=embedded(turn_flt), limit=depth, with_dense=True)])[0]
    wanted = {(t.payload.get("session_id"), t.payload.get("turn_index")): t.dense for t in turns if t.dense is not None}
    if not wanted:
        return []
    have = {p.id for p in found}
    sessions = tuple(sorted({str(sid) for sid, _ in wanted if sid}))
    message_flt = flt.and_(Cond("level", value="message"), Cond("session_id", any=sessions))
    out = []
    for point in store.scroll(message_flt):
        p = point.payload
        turn = (p.get("session_id"), p.get("turn_index"))
        if turn in wanted and point.id not in have and point.dense is None and not p.get("part"):
            point.dense = wanted[turn]
            out.append(point)
    return out


def dense_view(
    store: Store,
    query_dense: Sequence[float],
    query_lang: str,
    partitions: Sequence[Sequence[Scored]],
    candidates: Sequence[Scored],
) -> DenseView:
    """Cosines (language-aligned) of the candidates the dense side can judge."""
    known: dict[str, float] = {}  # a point found by several searches is measured once
    shift = language_shift(partitions, query_dense, query_lang, known) if ALIGN_LANGUAGES else 0.0
    turns = inherited_cosines(store, query_dense, candidates)
    cosines: dict[str, float] = {}
    other: set[str] = set()
    for point in candidates:
        if point.id in cosines:
            continue
        if point.dense is not None:
            raw, lang = _cosine(known, query_dense, point), point_lang(point)
        else:
            key = turn_key(point.payload.get("session_id", ""), int(point.payload.get("turn_index", -1)))
            if point.payload.get("part") or key not in turns:
                continue  # never seen by the model: no cosine (fusion ranks it by its words)
            raw, lang = turns[key]
        foreign = bool(lang) and lang != query_lang
        cosines[point.id] = raw + (shift if foreign else 0.0)
        if foreign:
            other.add(point.id)
    return DenseView(cosines, shift, other)
