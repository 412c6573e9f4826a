"""Patterns a cold command would compile at import, made lazy (a cold `search`
paid 15 ms for them before its first line): what they match is unchanged."""

from __future__ import annotations

import re

from convo_tui.core.index.text_lang import _CJK_CLASS, cjk_count, text_lang
from convo_tui.core.secret_rules import RULES
from hypothesis import given
from hypothesis import strategies as st

CJK_HEAVY = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0x3000, max_codepoint=0x9FFF),
        st.characters(min_codepoint=0xAB00, max_codepoint=0xFB00),
        st.sampled_from(list("abc XYZ 12,.")),
    ),
    max_size=600,
)


@given(st.one_of(CJK_HEAVY, st.text(max_size=600)))
def test_counting_cjk_in_python_and_by_the_pattern_agree(text):
    assert cjk_count(text) == len(re.findall(_CJK_CLASS, text))


def test_the_language_of_short_and_long_texts():
    assert text_lang("数据库回滚怎么做") == "cjk"
    assert text_lang("how do we roll back the database table 表") == "latin"
    assert text_lang("数据库回滚怎么做 " * 40) == "cjk"  # past the short path: the pattern
    assert text_lang("") == "latin"


def test_every_secret_rule_compiles_and_only_when_asked():
    for rule in RULES:
        assert "pattern" not in vars(rule) or rule.pattern  # not compiled by the import alone
    for rule in RULES:
        assert isinstance(rule.pattern, re.Pattern), rule.kind


@given(st.one_of(CJK_HEAVY, st.text(max_size=40)))
def test_query_terms_find_the_same_cjk_runs_as_the_pattern(text):
    from convo_tui.core.search.highlight import _CJK_RANGES, _cjk_run, query_terms

    run = "[" + "".join(f"{lo}-{hi}" for lo, hi in _CJK_RANGES) + "]+"
    assert _cjk_run(text) == bool(re.fullmatch(run, text))
    for found in re.findall(run, text):
        assert found in query_terms(text)
