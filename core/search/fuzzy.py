"""Fuzzy mode: typo-tolerant ranking with rapidfuzz, without the model.

A small filtered scope is scanned whole (its words read once and kept while
the index is unchanged: fuzzy_scope.py); a large one is narrowed to the
hybrid retrievers' candidates first (FUZZY_SCAN_LIMIT)."""

from __future__ import annotations

from collections.abc import Sequence

from convo_tui.core.hits import Hit
from convo_tui.core.index.points import LEVEL_MESSAGE, LEVEL_TURN
from convo_tui.core.index.text_lang import cjk_count
from convo_tui.core.search.fuzzy_scope import SCOPES, Ranked, text_of
from convo_tui.core.search.merge import merge
from convo_tui.core.search.query import ParsedQuery
from convo_tui.core.search.request import TEXT_FIELDS, Embedders, level_filter, with_vectors
from convo_tui.core.store.base import Cond, Query, Scored, Store
from rapidfuzz import fuzz, process, utils

# Fuzzy mode scans every turn text when the filtered scope is this small,
# otherwise it rescores hybrid candidates.
FUZZY_SCAN_LIMIT = 4000
FUZZY_CANDIDATES = 200
FUZZY_MIN_SCORE = 70.0


def search_fuzzy(
    store: Store, embedders: Embedders, parsed: ParsedQuery, query_dense: Sequence[float] | None, limit: int
) -> list[Hit]:
    """Typo-tolerant: each query word against the text's closest word (rapidfuzz)."""
    level = LEVEL_MESSAGE if parsed.role else LEVEL_TURN
    flt = level_filter(parsed, level)
    words = [w for w in utils.default_process(parsed.text).split() if w]
    scan = store.count(flt) <= FUZZY_SCAN_LIMIT
    scope = SCOPES.get(store, flt) if scan and not parsed.phrases and not any(map(cjk_count, words)) else None
    if scope is not None:
        top = _scope_top(store, scope.ranked(words, FUZZY_MIN_SCORE)[: limit * 2])
    else:
        if scan:
            candidates = list(store.scroll(flt, fields=TEXT_FIELDS))
        else:
            sparse = embedders.sparse.embed_query(parsed.text)
            query = Query(dense=query_dense, sparse=sparse if sparse.indices else None, filter=flt, limit=FUZZY_CANDIDATES)
            candidates = store.query([query])[0]
        top = _scored(candidates, words, parsed)[: limit * 2]
    _fill_dense(store, top, query_dense)
    if level == LEVEL_TURN:
        return merge(top, _matched_messages(store, top, words, parsed), query_dense, limit, turn_bonus=1.0, words=words)
    return merge([], top, query_dense, limit, words=words)


def _scored(candidates: list[Scored], words: list[str], parsed: ParsedQuery) -> list[Scored]:
    """The candidates scoring FUZZY_MIN_SCORE or more, best first."""
    scored: list[Scored] = []
    for point in candidates:
        text = text_of(point.payload)
        if not parsed.matches_phrases(text):
            continue
        score = fuzzy_score(words, text)
        if score >= FUZZY_MIN_SCORE:
            point.score = score / 100.0
            point.stage = "fuzzy"
            scored.append(point)
    # Ties (common: many texts hold the word) break on position, so pages never overlap.
    scored.sort(key=lambda s: (-s.score, s.payload.get("session_id", ""), s.payload.get("turn_index", -1), s.id))
    return scored


def _scope_top(store: Store, ranked: list[Ranked]) -> list[Scored]:
    """The best of a kept scope's turns, with their payloads read now."""
    payloads = store.payloads([r.id for r in ranked])
    return [Scored(id=r.id, score=r.score / 100.0, payload=payloads[r.id], stage="fuzzy") for r in ranked if r.id in payloads]


def _matched_messages(store: Store, turns: list[Scored], words: list[str], parsed: ParsedQuery) -> list[Scored]:
    """The messages of these turns that match on their own, so that merge folds
    them into their turn's card as matched messages (what hybrid does)."""
    wanted = {(t.payload.get("session_id"), t.payload.get("turn_index")) for t in turns}
    if not wanted:
        return []
    sessions = tuple(sorted({sid for sid, _ in wanted if sid}))
    indexes = tuple(sorted({index for _, index in wanted if isinstance(index, int)}))
    if not sessions or not indexes:
        return []
    flt = level_filter(parsed, LEVEL_MESSAGE).and_(Cond("session_id", any=sessions), Cond("turn_index", any=indexes))
    matched = []
    for point in store.scroll(flt, fields=TEXT_FIELDS):
        p = point.payload
        if (p.get("session_id"), p.get("turn_index")) not in wanted:
            continue
        # A message's words are a subset of its turn's, so this score never exceeds the turn's.
        score = fuzzy_score(words, p.get("text", ""))
        if score >= FUZZY_MIN_SCORE:
            point.score = score / 100.0
            point.stage = "fuzzy"
            matched.append(point)
    return matched


def fuzzy_score(words: list[str], text: str) -> float:
    """Mean over query words of the best similarity to the text (0..100).

    A word of Latin script is compared with the text's closest word; a word with
    Chinese, Japanese or Korean characters (written without spaces, so the text
    has no words to compare with) with the text's best-aligned run of characters."""
    if not words:
        return 0.0
    processed = utils.default_process(text)
    vocabulary = list(dict.fromkeys(processed.split()))  # words_of(text), processed once
    if not vocabulary:
        return 0.0
    total = 0.0
    for word in words:
        if cjk_count(word):
            total += fuzz.partial_ratio(word, processed)
            continue
        best = process.extractOne(word, vocabulary, scorer=fuzz.ratio, processor=None)
        total += best[1] if best else 0.0
    return total / len(words)


def _fill_dense(store: Store, points: list[Scored], query_dense: Sequence[float] | None) -> None:
    """Similarity for scanned points (scroll returns no vectors): one exact query."""
    if query_dense is None or not points:
        return
    ids = {p.id for p in points}
    keys = tuple(key for p in points if (key := p.payload.get("key")))
    if not keys:
        return
    vectors = {f.id: f.dense for f in with_vectors(store, query_dense, keys) if f.id in ids}
    for point in points:
        point.dense = vectors.get(point.id)
