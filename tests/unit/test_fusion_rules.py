"""Fusion rules (core/search/fusion.py) and the meaning half's language alignment
(core/search/meaning.py), on hand-made candidates: no model, no store."""

from convo_tui.core.index.text_lang import LANG_CJK, LANG_LATIN
from convo_tui.core.search import fusion, meaning
from convo_tui.core.search.fusion import fuse
from convo_tui.core.store.base import Cond, Filter, Scored


def point(pid: str, score: float = 0.0, **payload) -> Scored:
    return Scored(id=pid, score=score, payload=payload)


def ranked(points):
    return [(p.id, round(p.score, 3), p.stage) for p in points]


def test_a_point_the_model_never_saw_scores_its_keyword_relevance_not_a_fraction_of_it():
    """The tool output holding the error is a keyword-only point: no cosine. It must not
    lose to prose the model rates highly (issue 26: 17th in hybrid, 1st in keyword)."""
    prose = point("prose", 5.0)
    tool_output = point("tool-output", 10.0)
    dense_of = {"prose": 0.9}  # the model judged only the prose
    out = fuse([prose], [prose, tool_output], dense_of, weight=0.75)
    assert ranked(out) == [("tool-output", 1.0, "keyword"), ("prose", 0.8, "both")]


def test_an_unseen_point_sharing_one_word_of_six_does_not_bury_a_match_by_meaning():
    """Its words stand in for its meaning at `s ** UNSEEN_POWER`: a weak keyword
    match (the agent's narration "The user wants the X fixed" for "users lose their
    login when the phone changes network") must not outrank the prompt the model
    found, while a full match (above) still scores 1.0 (issue 26, paraphrase-1)."""
    prompt, narration = point("prompt", 0.0), point("narration", 3.0)
    out = fuse([prompt], [narration], {"prompt": 0.2}, weight=0.6, coverage={"narration": 1 / 6})
    assert [p.id for p in out] == ["prompt", "narration"]
    assert abs(out[1].score - (0.6 * (1 / 6) ** fusion.UNSEEN_POWER + 0.4 / 6)) < 1e-9


def test_unseen_rule_off_gives_the_old_capped_score():
    fusion.UNSEEN_BY_KEYWORD = False
    try:
        out = fuse([], [point("tool-output", 10.0)], {}, weight=0.75)
    finally:
        fusion.UNSEEN_BY_KEYWORD = True
    assert ranked(out) == [("tool-output", 0.25, "keyword")]


def test_exact_tier_puts_every_identifier_holder_above_the_rest_and_keeps_their_order():
    a, b, c = point("a", 9.0), point("b", 10.0), point("c", 4.0)
    dense_of = {"a": 0.2, "b": 1.0, "c": 0.1}
    out = fuse([a, b, c], [a, b, c], dense_of, weight=0.6, exact={"a", "c"})
    assert [p.id for p in out] == ["a", "c", "b"]
    assert [p.stage for p in out] == ["exact", "exact", "both"]
    assert all(p.score >= fusion.EXACT_FLOOR for p in out[:2]) and out[2].score <= fusion.EXACT_FLOOR


def test_stage_names_the_retrievers_that_placed_a_point():
    both, meaning_only = point("both", 5.0), point("meaning", 0.0)
    out = fuse([both, meaning_only], [both], {"both": 0.5, "meaning": 0.8}, weight=0.6)
    assert {p.id: p.stage for p in out} == {"both": "both", "meaning": "meaning"}


def test_dense_only_noise_is_dropped_but_a_keyword_match_is_not():
    weak, matched = point("weak"), point("matched", 3.0)
    out = fuse([weak, matched], [matched], {"weak": 0.0, "matched": 0.0}, noise={"weak", "matched"}, weight=0.6)
    assert [p.id for p in out] == ["matched"]


def test_text_bm25_could_not_match_is_ranked_by_meaning_for_a_cjk_query():
    """English text holds none of a Chinese query's words: unmatched by BM25, it is
    ranked by its meaning alone instead of being capped at w * dense."""
    zh_near_miss, en_answer = point("zh", 4.0), point("en", 0.0)
    dense_of = {"zh": 0.6, "en": 0.9}
    without = fuse([zh_near_miss, en_answer], [zh_near_miss], dense_of, weight=0.75)
    assert [p.id for p in without] == ["zh", "en"]  # 0.45 + 0.25 = 0.70 against 0.675
    with_rule = fuse([zh_near_miss, en_answer], [zh_near_miss], dense_of, weight=0.75, other_language={"en"})
    expected = 0.9 * (0.75 + 0.25 * fusion.OTHER_LANGUAGE_SHARE)
    assert with_rule[0].id == "en" and abs(with_rule[0].score - expected) < 1e-9 and with_rule[0].stage == "meaning"


def test_a_stray_shared_word_does_not_hold_down_text_in_the_other_language():
    """An English query's Chinese answer often shares one identifier with it: a
    sliver of BM25 must not cap it under an English near miss that shares the
    query's words but not its meaning (issue 26, cross_en_zh)."""
    en_near_miss, zh_answer = point("en", 4.0), point("zh", 0.2)
    dense_of = {"en": 0.5, "zh": 0.85}
    without = fuse([en_near_miss, zh_answer], [en_near_miss, zh_answer], dense_of, weight=0.7)
    assert [p.id for p in without] == ["en", "zh"]  # 0.35 + 0.3 = 0.65 against 0.595 + 0.015
    en_near_miss, zh_answer = point("en", 4.0), point("zh", 0.2)  # fuse sets each point's score
    with_rule = fuse([en_near_miss, zh_answer], [en_near_miss, zh_answer], dense_of, weight=0.7, other_language={"zh"})
    expected = 0.7 * 0.85 + 0.3 * fusion.OTHER_LANGUAGE_SHARE * 0.85
    assert with_rule[0].id == "zh" and abs(with_rule[0].score - expected) < 1e-9
    assert with_rule[0].stage == "both"  # BM25 did match a word: the stage says so, not the stand-in


def test_language_partitions_filter_on_lang_and_keep_points_without_it_in_the_latin_one():
    base = Filter(must=(Cond("visible", value=True),))
    cjk, other = meaning.partition_filters(base)
    assert Cond("lang", value=LANG_CJK) in cjk.must
    assert Cond("lang", value=LANG_CJK) in other.must_not and Cond("lang", value=LANG_CJK) not in other.must


def _with_vector(pid: str, cos: float, lang: str) -> Scored:
    # unit query along x; a unit vector whose x is the cosine
    return Scored(id=pid, score=cos, payload={"lang": lang}, dense=[cos, (1 - cos * cos) ** 0.5])


def test_language_shift_is_the_gap_between_the_partitions_reference_cosines():
    query = [1.0, 0.0]
    latin = [_with_vector(f"en{i}", 0.84 - i * 0.001, LANG_LATIN) for i in range(30)]
    cjk = [_with_vector(f"zh{i}", 0.81 - i * 0.001, LANG_CJK) for i in range(30)]
    shift = meaning.language_shift([cjk, latin], query, LANG_LATIN)
    assert abs(shift - 0.03) < 1e-6  # Chinese texts move up for an English query
    # A Chinese query: the English texts already score higher; they are not lowered
    # (Chinese chatter would then rank above an English answer).
    assert meaning.language_shift([cjk, latin], query, LANG_CJK) == 0.0


def test_no_shift_when_a_language_has_too_few_texts_to_judge():
    query = [1.0, 0.0]
    latin = [_with_vector(f"en{i}", 0.84, LANG_LATIN) for i in range(30)]
    cjk = [_with_vector("zh0", 0.70, LANG_CJK)]
    assert meaning.language_shift([cjk, latin], query, LANG_LATIN) == 0.0
    assert meaning.language_shift([latin], query, LANG_LATIN) == 0.0


def test_dense_queries_ask_only_for_points_that_hold_a_vector():
    """The `dense_ready` condition is what keeps a dense query from weighing every
    point of the level (49 ms -> 3 ms at a million messages, BENCHMARKS.md)."""
    level = Filter(must=(Cond("visible", value=True), Cond("level", value="turn")))
    for split in (False, True):
        queries = meaning.dense_queries([0.1, 0.2], level, 60, split)
        assert len(queries) == (2 if split else 1)
        for query in queries:
            assert Cond("dense_ready", value=True) in query.filter.must
            assert set(level.must) <= set(query.filter.must)
