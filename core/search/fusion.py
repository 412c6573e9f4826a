"""Hybrid fusion in Python, the same on every store backend.

Each level runs a dense and a BM25 search; this module turns their raw scores
into one relevance in 0..1 that both orders the cards and is the number a card
shows. Chosen by bench/relevance.py (BENCHMARKS.md, "Relevance", has the table):

- dense: cosine mapped linearly from the model's noise level (`floor`, below
  which a match means nothing) to its `ceiling` (a near-paraphrase), clamped;
- BM25: the score over the best BM25 score of the level, so the strongest
  keyword match is 1.0 and partial matches fall off with their weight;
- BM25 is also multiplied by the share of the query's terms the text holds;
- fused: `w * dense + (1 - w) * bm25`, w per model (DenseScale.weight; 0 for a
  CJK query on a model that cannot read CJK; at most CODE_DENSE_WEIGHT for a
  query made mostly of identifiers; for text in the other language than the
  query's, bm25 is at least OTHER_LANGUAGE_SHARE * dense), plus an
  `AGREEMENT` bonus (0 now) when both retrievers found the point; dense-only
  points under the model's `noise` cosine are dropped (the relevance floor);
- a point the model has not seen (no cosine: a keyword-only part, or a text
  phase 2 has not reached) has its meaning guessed from its words,
  `bm25 ** UNSEEN_POWER`, not taken as 0: "unseen" is not "unrelated" (issue
  26: a table named in a tool's output ranked 17th in hybrid, first in keyword
  mode), but one shared word is not a meaning either (the power: an agent's
  narration sharing "user" with a paraphrase buried its answer);
- exact tier: for a query with identifiers, a point holding every one of them
  verbatim scores `EXACT_FLOOR + (1 - EXACT_FLOOR) * score` and every other
  point `EXACT_FLOOR * score`: the exact ones rank first, each group in its order.

Each fused point says which stage placed it (`Scored.stage`): "keyword",
"meaning", "both" or "exact"; cards and `search --json` show it.

A point only the dense model found keeps its calibrated cosine instead of a
rank-based 1/(k+r), so a strong paraphrase match is not pushed under weak
keyword matches (the RRF failure measured in issue 15).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from convo_tui.core.store.base import Scored

DENSE_WEIGHT = 0.6
AGREEMENT = 0.0
# Candidates each retriever contributes per level, at least (more when the page is deeper).
PREFETCH = 60
# A card whose relevance is under this is noise and is dropped.
RELEVANCE_FLOOR = 0.05
# Where the exact tier starts: a card holding every identifier of the query
# verbatim keeps its order among such cards and ranks above all others.
EXACT_FLOOR = 0.9
# Fusion rules the relevance bench can turn off to measure them (bench/relevance.py --variant).
UNSEEN_BY_KEYWORD = True  # a point the model has not seen has its meaning guessed from its words
# 1 = an unseen point scores its keyword relevance as is (before). 1.5, 2 and 3
# each found one more paraphrase needle at 900 sessions; 1.5 and 3 left the
# relevance set's R@3 as it was, 2 lost one cross_en_zh query (BENCHMARKS.md).
UNSEEN_POWER = 1.5
EXACT_TIER = True  # a point holding every identifier of the query ranks above the rest
# Text in the other language than the query's (Chinese, Japanese or Korean
# against the rest) shares with it only the odd identifier or product name, so
# BM25's silence or near-silence there is no evidence against it. Its keyword
# part is `max(bm25, OTHER_LANGUAGE_SHARE * dense)`: its meaning stands in for
# the words it could never share, so the query's language does not win on
# words alone. Measured on the relevance set (BENCHMARKS.md, issue 26): 0.25
# to 0.4 give the same R@3; 0.5 on unmatched CJK-query texts only (before)
# left cross_zh_en at 0.86 and cross_en_zh at 0.81, under semantic's 0.85.
OTHER_LANGUAGE_SHARE = 0.35
# For a Latin-script query, a Chinese text's keyword part is at least this
# times its keyword relevance for the query's dictionary translation
# (core/search/translate.py); 0 turns translation off. Measured on the
# relevance set (BENCHMARKS.md, issue 26): 0.6 to 1.5 all lift cross_en_zh R@3
# 0.85 -> 0.88; 1.0 also lifts its R@1 (0.62 -> 0.65); 0.3 changes nothing.
TRANSLATED_WEIGHT = 1.0
STAGE_KEYWORD = "keyword"
STAGE_MEANING = "meaning"
STAGE_BOTH = "both"
STAGE_EXACT = "exact"


# The method search uses; the bench compares the others ("rrf", "dbsf") on the same lists.
METHOD = "weighted"
RRF_K = 60


@dataclass(frozen=True)
class DenseScale:
    """Where a model's cosines stop meaning anything and where they mean "same thing"."""

    floor: float
    ceiling: float
    # Dense weight in the fused score, and the cosine under which a point the
    # dense model alone found is noise (nonsense words reach it, on the bench).
    weight: float = 0.6
    noise: float = 0.0
    # Whether the model reads Chinese, Japanese and Korean (MiniLM does not: its
    # cosines for a Chinese query are high and meaningless).
    cjk: bool = False
    # A query none of whose words the index holds is answered by meaning only when
    # its nearest turn's cosine plus its lead over the second reaches this (search
    # unknown_words.stands_out). Measured on tests/engine/test_search_quality.py's
    # corpus: e5 gives 12 nonsense strings (keyboard mash, lorem ipsum, mojibake,
    # rare characters, Cyrillic and full-width mash) 0.794-0.860 and Chinese
    # questions about English turns and an English paraphrase in other words
    # 0.878-0.945; MiniLM English nonsense at most 0.370, a paraphrase 0.488.
    unknown_words: float = 1.0

    def __call__(self, cosine: float) -> float:
        return max(0.0, min(1.0, (cosine - self.floor) / (self.ceiling - self.floor)))


# Measured on the relevance corpus: MiniLM gives unrelated text 0.0-0.3 and
# e5 (whose cosines crowd into 0.7-0.95) gives it 0.72-0.8.
SCALES = {
    "all-minilm-l6-v2-int8": DenseScale(0.25, 0.75, weight=0.6, noise=0.32, unknown_words=0.42),
    # weight 0.7 on the harder set (0.75 chosen on issue 15's set): hybrid R@3 0.935 vs 0.927.
    "multilingual-e5-small": DenseScale(0.82, 0.92, weight=0.7, noise=0.83, cjk=True, unknown_words=0.87),
}
_DEFAULT_SCALE = DenseScale(0.25, 0.75, weight=0.6, noise=0.32, unknown_words=0.42)
# Dense weight for a query in Chinese, Japanese or Korean when the model does not read it.
NO_CJK_WEIGHT = 0.0


def dense_scale(model: str) -> DenseScale:
    return SCALES.get(model.lower().removeprefix("intfloat/"), _DEFAULT_SCALE)


# How much the share of query terms a text contains counts against its BM25 rank.
COVERAGE_POWER = 1.0


def sparse_relevance(points: Sequence[Scored], coverage: dict[str, float] | None = None) -> dict[str, float]:
    """BM25 scores over the level's best, times the share of the query's terms the
    text holds: a text with every term of the query scores 1.0; the best of a set
    of texts that share one common word with the query does not."""
    best = max((p.score for p in points), default=0.0)
    if best <= 0:
        return {}
    cover = coverage or {}
    return {p.id: p.score / best * cover.get(p.id, 1.0) ** COVERAGE_POWER for p in points}


def fuse(
    dense: Sequence[Scored],
    sparse: Sequence[Scored],
    dense_of: dict[str, float],
    *,
    noise: set[str] | None = None,
    coverage: dict[str, float] | None = None,
    weight: float | None = None,
    agreement: float | None = None,
    exact: set[str] | None = None,
    other_language: set[str] | None = None,
    translated: dict[str, float] | None = None,
) -> list[Scored]:
    """One list, best first, `score` = relevance in 0..1, `stage` = what placed it.

    `dense_of` maps point id -> calibrated dense relevance (0..1) for every
    point the model has judged; a point missing from it was never seen by the
    model, and its words stand in for its meaning (UNSEEN_POWER). `exact`: ids in the exact tier (None:
    the query has no identifiers, no tier).
    `other_language`: ids of texts in the other language than the query's
    (their keyword part is at least OTHER_LANGUAGE_SHARE of their meaning's).
    `translated`: keyword relevance of such texts for the query's translation
    (their keyword part is at least TRANSLATED_WEIGHT of it).
    """
    weight = DENSE_WEIGHT if weight is None else weight
    agreement = AGREEMENT if agreement is None else agreement
    keyword = sparse_relevance(sparse, coverage)
    points: dict[str, Scored] = {}
    for point in list(dense) + list(sparse):
        kept = points.setdefault(point.id, point)
        if point.dense is not None and kept.dense is None:
            kept.dense = point.dense
        if kept.partial and not point.partial:  # a keyword hit carries the whole payload
            kept.payload, kept.partial, kept.terms = point.payload, False, point.terms
    fused: list[Scored] = []
    for pid, point in points.items():
        s = keyword.get(pid, 0.0)
        if pid not in dense_of:
            guess = s**UNSEEN_POWER if UNSEEN_BY_KEYWORD else 0.0  # unseen by the model: its words stand in for its meaning
            score, stage = weight * guess + (1 - weight) * s, STAGE_KEYWORD
        else:
            d = dense_of[pid]
            if s == 0 and noise and pid in noise:
                continue  # only the dense model found it, and weakly: noise
            foreign = other_language is not None and pid in other_language
            t = translated.get(pid, 0.0) if (translated and foreign) else 0.0
            words = max(s, OTHER_LANGUAGE_SHARE * d, TRANSLATED_WEIGHT * t) if foreign else s
            score = weight * d + (1 - weight) * words
            if d > 0 and s > 0:
                score += agreement * min(d, s)
            stage = (
                STAGE_BOTH
                if (d > 0 and (s > 0 or t > 0) and weight > 0)
                else STAGE_MEANING
                if (d > 0 and weight > 0)
                else STAGE_KEYWORD
            )
        if exact is not None and EXACT_TIER:
            if pid in exact:
                score, stage = EXACT_FLOOR + (1 - EXACT_FLOOR) * min(1.0, score), STAGE_EXACT
            else:
                score = EXACT_FLOOR * min(1.0, score)
        point.score = min(1.0, score)
        point.stage = stage
        fused.append(point)
    fused.sort(key=lambda p: p.score, reverse=True)
    return fused


def rrf(lists: Sequence[Sequence[Scored]], k: int = RRF_K) -> list[Scored]:
    """Reciprocal rank fusion (what Qdrant's Fusion.RRF computes), for comparison."""
    points: dict[str, Scored] = {}
    scores: dict[str, float] = {}
    for ranked in lists:
        for rank, point in enumerate(ranked):
            points.setdefault(point.id, point)
            if point.dense is not None:
                points[point.id].dense = point.dense
            scores[point.id] = scores.get(point.id, 0.0) + 1.0 / (k + rank + 1)
    fused = []
    for pid, point in points.items():
        point.score = scores[pid]
        fused.append(point)
    fused.sort(key=lambda p: p.score, reverse=True)
    return fused


def dbsf(lists: Sequence[Sequence[Scored]]) -> list[Scored]:
    """Distribution-based score fusion (Qdrant's DBSF): each list's scores mapped
    from mean +- 3 standard deviations to 0..1, then summed; for comparison."""
    import statistics

    points: dict[str, Scored] = {}
    scores: dict[str, float] = {}
    for ranked in lists:
        raw = [p.score for p in ranked]
        if not raw:
            continue
        mean = statistics.fmean(raw)
        spread = 3 * (statistics.pstdev(raw) if len(raw) > 1 else 0.0)
        low, high = mean - spread, mean + spread
        for point in ranked:
            points.setdefault(point.id, point)
            if point.dense is not None:
                points[point.id].dense = point.dense
            norm = 0.5 if high <= low else max(0.0, min(1.0, (point.score - low) / (high - low)))
            scores[point.id] = scores.get(point.id, 0.0) + norm
    fused = []
    for pid, point in points.items():
        point.score = scores[pid] / max(1, len(lists))
        fused.append(point)
    fused.sort(key=lambda p: p.score, reverse=True)
    return fused
