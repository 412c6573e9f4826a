"""Two-level search over the index: hybrid (default), semantic, keyword, fuzzy.

Hybrid (docs/ARCHITECTURE.md, "Two-level merge"): turn and message levels each run a dense and
a BM25 search (one batch of plain queries) that fusion.py turns into one relevance in Python;
merge.py folds message hits into their turn's card and collapses duplicates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from convo_tui.core.errors import QueryError
from convo_tui.core.hits import Hit
from convo_tui.core.index.points import LEVEL_MESSAGE, LEVEL_TURN, turn_key
from convo_tui.core.index.text_lang import cjk_count, text_lang
from convo_tui.core.limits import check_count
from convo_tui.core.search import fusion, meaning
from convo_tui.core.search.fusion import RELEVANCE_FLOOR, DenseScale, dbsf, dense_scale, fuse, rrf
from convo_tui.core.search.highlight import query_terms
from convo_tui.core.search.merge import cosine, merge
from convo_tui.core.search.page import LIGHT_FIELDS, page
from convo_tui.core.search.parts import around_match, part_turns
from convo_tui.core.search.query import ParsedQuery, parse_query
from convo_tui.core.search.query_kind import CODE_DENSE_WEIGHT, QueryKind, classify, holds_all
from convo_tui.core.search.request import TEXT_FIELDS, Embedders, level_filter, point_terms, point_text
from convo_tui.core.search.unknown_words import knows_a_word, stands_out
from convo_tui.core.search.worded import worded_meaning_hits
from convo_tui.core.settings import SEARCH_MODES
from convo_tui.core.store.base import Query, Scored, SparseVec, Store

MODES = SEARCH_MODES


def search(
    store: Store,
    embedders: Embedders,
    query: str,
    *,
    limit: int = 10,
    mode: str = "hybrid",
    offset: int = 0,
    resolve_session: Callable[[str], str] | None = None,
    resolve_tag: Callable[[str], tuple[str, ...]] | None = None,
) -> list[Hit]:
    """Cards `offset .. offset+limit` of the ranking, best first; each card's
    `score` (relevance, 0..1) is what orders the list and what a card shows.
    Cards under the relevance floor are dropped, so a nonsense word finds nothing.
    `resolve_session` turns a `session:` filter's id prefix into the whole id;
    `resolve_tag` a `tag:` filter into the sessions the user gave that tag."""
    if mode not in MODES:
        raise QueryError(f"unknown search mode '{mode}' (use one of {', '.join(MODES)})")
    parsed = parse_query(query)
    check_count("limit", limit)
    check_count("offset", offset)
    if parsed.session and resolve_session is not None:
        parsed.session = resolve_session(parsed.session)
    if parsed.tag and resolve_tag is not None:
        parsed.tagged = resolve_tag(parsed.tag)
    if limit == 0:
        return []
    window = offset + limit
    if not parsed.text:
        return _latest(store, parsed, window)[offset:] if parsed.has_filters else []
    kind = classify(parsed.text)
    if kind.error:
        # A pasted error's quotes hold today's values ("db-primary.internal"): words, not phrases.
        parsed.phrases = []
    # Keyword and fuzzy cards are ranked without the model: no query embedding (20-30 ms with e5).
    needs_dense = mode in ("hybrid", "semantic") and embedders.dense is not None
    query_dense = embedders.dense.embed_query(parsed.text) if needs_dense else None  # type: ignore[union-attr]
    if mode == "fuzzy":
        from convo_tui.core.search.fuzzy import search_fuzzy  # with numpy (fuzzy_scope.py): fuzzy mode only

        return search_fuzzy(store, embedders, parsed, query_dense, window)[offset:]
    if mode == "semantic" and query_dense is None:
        raise QueryError("semantic search needs the embedding model, which is not loaded")
    sparse = embedders.sparse.embed_query(parsed.text) if mode != "semantic" else None
    dense = query_dense if mode != "keyword" else None
    if sparse is not None and not sparse.indices:
        sparse = None
    if dense is None and sparse is None:
        return []
    scale = dense_scale(getattr(embedders.dense, "name", ""))

    def nonsense() -> bool:
        """No word of it in the index and nothing near it by meaning."""
        return not knows_a_word(store, embedders, parsed, sparse, mode) and not stands_out(store, parsed, dense, scale)  # type: ignore[arg-type]

    if mode == "semantic" and nonsense():
        return []
    turns, messages, worded = _two_levels(store, embedders, parsed, kind, dense, sparse, query_dense, scale, window)
    # A hybrid query whose keyword searches found a text knows a word of the index:
    # only one that found none asks the whole index (one more search, 5 ms at 1M messages).
    if mode == "hybrid" and dense is not None and not worded and nonsense():
        return []
    if parsed.phrases:  # read whole (`_light`): a phrase is checked in the text
        turns = [t for t in turns if parsed.matches_phrases(t.payload.get("user_text", ""), t.payload.get("ai_text", ""))]
        messages = [m for m in messages if parsed.matches_phrases(m.payload.get("text", ""))]
    matched_turns = {t.payload.get("key") for t in turns}
    turns += part_turns(store, turns, messages)
    floor = RELEVANCE_FLOOR if fusion.METHOD == "weighted" else 0.0
    hits = page(store, turns, messages, query_dense, window, floor=floor, words=query_terms(parsed.text, parsed.phrases))[offset:]
    for hit in hits:
        if hit.part and turn_key(hit.session_id, hit.turn_index) in matched_turns:
            hit.part = hit.part_text = ""  # the turn matched by what was said: no part label
    return [around_match(hit, parsed.text) for hit in hits]


def _two_levels(
    store: Store,
    embedders: Embedders,
    parsed: ParsedQuery,
    kind: QueryKind,
    dense: Sequence[float] | None,
    sparse: SparseVec | None,
    query_dense: Sequence[float] | None,
    scale: DenseScale,
    window: int,
) -> tuple[list[Scored], list[Scored], bool]:
    """Per level, dense and BM25 searches in one batch, fused here (fusion.py);
    and whether a BM25 search found anything.

    With a multilingual model each language gets its own dense search and the
    two are aligned (meaning.py); texts the model has not seen rank by their words."""
    # Phrases are checked after retrieval, so fetch deeper when there are some.
    depth = max(fusion.PREFETCH, window * 2) if not parsed.phrases else max(window * 10, 100)
    levels = [LEVEL_MESSAGE] if parsed.role else [LEVEL_TURN, LEVEL_MESSAGE]
    split = dense is not None and scale.cjk and meaning.ALIGN_LANGUAGES
    fields = LIGHT_FIELDS if _light(parsed, kind) else None
    query_lang = text_lang(parsed.text)
    translated = None
    if dense is not None and sparse is not None:  # hybrid only: a keyword search need not import it
        from convo_tui.core.search.translated_search import TranslatedSearch

        translated = TranslatedSearch.of(embedders, parsed, query_lang, scale)
    queries: list[Query] = []
    shape: list[tuple[int, int]] = []  # per level: (dense queries, sparse queries)
    for level in levels:
        flt = level_filter(parsed, level)
        dense_part = meaning.dense_queries(dense, flt, depth, split, fields) if dense is not None else []
        # A keyword search ranks by words alone: its hits' vectors would be read for nothing
        # (and a cold `search --mode keyword` would load the dense shard for them).
        wants = query_dense is not None
        sparse_part = (
            [Query(sparse=sparse, filter=flt, limit=depth, with_dense=wants, with_terms=True)] if sparse is not None else []
        )
        queries += dense_part + sparse_part
        shape.append((len(dense_part), len(sparse_part)))
    if translated is not None:  # one query for both levels
        queries.append(translated.request(levels, depth))
    results = store.query(queries)
    found_translated = translated.found(results[-1], levels, depth) if translated is not None else []
    weighed = dense is not None and sparse is not None and fusion.METHOD == "weighted"
    worded_too = worded_meaning_hits(store, parsed, sparse, levels, shape, results, fields, depth) if weighed else {}  # type: ignore[arg-type]
    fused = []
    worded = False
    at = 0
    for level, (n_dense, n_sparse) in zip(levels, shape, strict=True):
        partitions = results[at : at + n_dense]
        by_sparse = [*(results[at + n_dense] if n_sparse else []), *worded_too.get(level, [])]
        by_translated = [p for p in found_translated if p.payload.get("level") == level]
        at += n_dense + n_sparse
        worded = worded or bool(by_sparse)
        by_dense = [p for part in partitions for p in part]
        exact = _exact(kind, [*by_dense, *by_sparse]) if fusion.METHOD == "weighted" else None
        if sparse is None:  # semantic
            if parsed.role and query_dense is not None:  # messages its turn's vector reads have none of their own
                by_dense += meaning.covered_messages(store, query_dense, parsed.store_filter(), depth, by_dense)
            view = meaning.dense_view(store, query_dense or [], query_lang, partitions, by_dense)
            dense_of = {pid: scale(c) for pid, c in view.cosines.items()}
            noise = {pid for pid, c in view.cosines.items() if c < scale.noise}
            fused.append(fuse(by_dense, [], dense_of, noise=noise, weight=1.0, agreement=0.0))
        elif dense is None:  # keyword
            cover = _coverage(embedders, sparse, by_sparse)
            fused.append(fuse([], by_sparse, {}, coverage=cover, weight=0.0, agreement=0.0, exact=exact))
        elif fusion.METHOD == "rrf":
            fused.append(rrf([by_dense, by_sparse]))
        elif fusion.METHOD == "dbsf":
            fused.append(dbsf([by_dense, by_sparse]))
        else:
            view = meaning.dense_view(store, query_dense or [], query_lang, partitions, [*by_dense, *by_sparse, *by_translated])
            dense_of = {pid: scale(c) for pid, c in view.cosines.items()}
            noise = {pid for pid, c in view.cosines.items() if c < scale.noise}
            cover = _coverage(embedders, sparse, by_sparse)
            weight = _weight(scale, parsed, kind)
            other = view.other_language if scale.cjk else set()
            words_of = translated.relevance(embedders, by_translated) if translated is not None else None
            fused.append(
                fuse(
                    [*by_dense, *(p for p in by_translated if p.id in dense_of)],
                    by_sparse,
                    dense_of,
                    noise=noise,
                    coverage=cover,
                    weight=weight,
                    exact=exact,
                    other_language=other,
                    translated=words_of,
                )
            )
    if parsed.role:
        return [], fused[0], worded
    return fused[0], fused[1], worded


def _light(parsed: ParsedQuery, kind: QueryKind) -> bool:
    """Whether meaning hits may come with a few fields only (page.py): not when
    fusion reads their text (a phrase, the exact tier's identifiers)."""
    return not parsed.phrases and not kind.identifiers and fusion.METHOD == "weighted"


def _weight(scale: DenseScale, parsed: ParsedQuery, kind: QueryKind) -> float:
    """The dense weight for this query: the model's, none for CJK on a model that
    cannot read it, at most CODE_DENSE_WEIGHT for a query made of identifiers."""
    if not scale.cjk and cjk_count(parsed.text):
        return fusion.NO_CJK_WEIGHT
    return min(scale.weight, CODE_DENSE_WEIGHT) if kind.code else scale.weight


def _exact(kind: QueryKind, points: Sequence[Scored]) -> set[str] | None:
    """Ids of the points holding every identifier of the query verbatim (None: it has none)."""
    if not kind.identifiers:
        return None
    return {p.id for p in points if holds_all(point_text(p), kind.identifiers)}


def _coverage(embedders: Embedders, query: SparseVec, points: Sequence[Scored]) -> dict[str, float]:
    """Share of the query's BM25 terms each text contains (its tokens, as indexed)."""
    terms = set(query.indices)
    if len(terms) <= 1:
        return {}
    return {point.id: len(terms & point_terms(embedders, point)) / len(terms) for point in points}


def _latest(store: Store, parsed: ParsedQuery, limit: int) -> list[Hit]:
    """Filters and no words: the newest matching turns (or messages, with role:)."""
    level = LEVEL_MESSAGE if parsed.role else LEVEL_TURN
    # Read through the timestamp index: `limit * 2` points, never every match
    # (sorting every turn in Python took seconds at 100k turns: cass issue #395).
    chosen = store.newest(level_filter(parsed, level), limit=limit * 2, fields=TEXT_FIELDS)
    for rank, point in enumerate(chosen):
        point.score = 1.0 / (1 + rank)
    if level == LEVEL_TURN:
        return merge(chosen, [], None, limit, turn_bonus=1.0)
    return merge([], chosen, None, limit)


__all__ = ["MODES", "cosine", "search"]
