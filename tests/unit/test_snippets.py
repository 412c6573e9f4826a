"""core.snippets: the window of a message that matched the query, sized in terminal cells."""

from __future__ import annotations

import pytest
from convo_tui.core.search.snippets import LEAD_CELLS, cell_width, snippet
from hypothesis import given
from hypothesis import strategies as st


def cells(text: str) -> int:
    return sum(cell_width(ch) for ch in text)


def test_short_text_is_returned_whole_with_whitespace_flattened():
    assert snippet("  one\n\ntwo  three ", ["two"], 80) == "one two three"


def test_the_window_holds_the_best_cluster_of_terms_not_the_start():
    text = "redis mentioned once. " + "filler words. " * 30
    text += "Set the Redis cache to expire after ten minutes. " + "more filler. " * 30
    shown = snippet(text, ["redis", "cache", "expire"], 80)
    assert "Redis cache to expire" in shown
    assert shown.startswith("…") and shown.endswith("…")
    assert cells(shown) <= 80


def test_the_cut_starts_on_a_whole_word_a_little_before_the_match():
    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau " * 3
    shown = snippet(text + "the target word here " + text, ["target"], 60)
    body = shown.removeprefix("…").removesuffix("…")
    assert body.split()[0] in text.split()  # no half word at the start
    assert 0 < body.index("target") <= 24


def test_no_match_keeps_the_start_cut_on_a_word():
    assert snippet("word " * 50, ["zzz"], 30) == "word word word word word word…"


def test_a_match_at_the_very_end_is_shown():
    assert snippet("x" * 100 + " target", ["target"], 20).endswith("target")
    assert "target" in snippet("a " * 10 + "target at the end", ["target"], 20)


def test_cjk_counts_two_cells_a_character_and_needs_no_spaces():
    text = "前言" * 50 + "Redis 缓存什么时候失效比较合适？商品详情可以设置 10 分钟过期" + "后记" * 50
    shown = snippet(text, ["缓存", "失效"], 40)
    assert "缓存什么时候失效" in shown
    assert cells(shown) <= 40
    assert shown.startswith("…") and shown.endswith("…")


@given(st.text(alphabet=st.sampled_from(list("ab 缓存x\n")), max_size=300), st.integers(min_value=8, max_value=120))
def test_never_wider_than_asked(text, width):
    assert cells(snippet(text, ["ab", "缓存"], width)) <= width


@pytest.mark.parametrize("repeat", [1, 6])  # a text that fits the width, and one a little longer
def test_a_snippet_the_caller_cuts_starts_near_a_late_match(repeat):
    """A card cuts its line at its edge: a match at the end of a 256-character message
    was at the far end of the window (the room before it filled in), off the card."""
    text = "See `nexpodelmi` in `mivahomnex.py`. " * repeat + "How do we configure the Go SDK? Also check marzipanlighthouse."
    shown = snippet(text, ["marzipanlighthouse"], 240, cut_after=True)
    assert shown.startswith("…") and shown.index("marzipanlighthouse") <= LEAD_CELLS + 2
    assert snippet("an early marzipanlighthouse, then more", ["marzipanlighthouse"], 240, cut_after=True) == (
        "an early marzipanlighthouse, then more"
    )


def test_a_card_starts_at_the_cluster_it_shows_not_at_a_lone_term_before_it():
    """The card shows about 70 cells: windows compared over 240 cells started at a lone
    "deployment" 100 cells before the sentence that holds every term of the query."""
    filler = "the rollout notes list the steps we took on Tuesday and the people who helped " * 2
    text = f"Our deployment went fine. {filler} In the end the Kubernetes deployment is configured with two replicas."
    terms = ["kubernetes", "deployment", "configured"]
    shown = snippet(text, terms, 240, cut_after=True)
    assert shown.startswith("…") and "Kubernetes deployment is configured" in shown[:70]
    assert "Kubernetes deployment is configured" in snippet(text, terms, 240)  # the CLI shows its whole window
