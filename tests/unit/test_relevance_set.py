"""The harder judged relevance set (bench/relevance_hard_*.py) is well formed: a smoke
test of the benchmark's data, not of ranking (that is `python -m bench.relevance`)."""

import re
from collections import Counter

from bench.relevance import SETS, JudgedSet, metrics, rank_of

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_judged_turn_exists_and_each_kind_has_enough_queries():
    judged = JudgedSet("hard")
    keys = {f"{sid}:{i}" for sid, (_, turns) in judged.sessions.items() for i in range(len(turns))}
    assert len(judged.queries) >= 120
    seen = set()
    for kind, query, relevant in judged.queries:
        assert kind in judged.kinds, query
        assert query not in seen, query
        seen.add(query)
        assert relevant and set(relevant) <= keys, query
    counts = Counter(kind for kind, _, _ in judged.queries)
    assert min(counts[kind] for kind in judged.kinds) >= 12
    assert {"keyword", "paraphrase", "vague", "chinese", "cross_zh_en", "cross_en_zh", "typo", "error", "command"} == set(
        judged.kinds
    )


def test_cross_language_queries_are_in_one_language_and_answered_in_the_other():
    judged = JudgedSet("hard")
    for kind, query, relevant in judged.queries:
        sessions = [key.rsplit(":", 1)[0] for key in relevant]
        if kind in ("chinese", "cross_zh_en"):
            assert CJK.search(query), query
        if kind == "cross_en_zh":
            assert not CJK.search(query) and all(s.startswith("zh-") for s in sessions), query
        if kind == "cross_zh_en":
            assert not any(s.startswith("zh-") for s in sessions), query


def test_the_corpus_is_written_as_cursor_transcripts(tmp_path):
    judged = JudgedSet("hard")
    root = judged.write(tmp_path)
    files = sorted(root.rglob("*.txt"))
    assert len(files) == len(judged.sessions) and all(f.read_text(encoding="utf-8").startswith("user:") for f in files)


def test_metrics_count_the_first_relevant_card():
    assert rank_of([("a", 0), ("b", 2), ("c", 1)], ["c:1", "b:2"]) == 2
    assert rank_of([("a", 0)], ["b:0"]) is None
    assert metrics([1, 3, None, 2]) == {"R@1": 0.25, "R@3": 0.75, "R@10": 0.75, "MRR": (1 + 1 / 3 + 1 / 2) / 4}
    assert set(SETS) == {"hard", "classic"}
