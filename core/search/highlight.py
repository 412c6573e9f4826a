"""Where a query's words appear in a text, for highlighting in cards and the reader.

Latin words match at word starts (`order` marks `orders`, never the `is` in
`registry`); common stopwords are not marked; Chinese and Japanese, which have
no spaces, match any run of two or more characters of the query's CJK part.
"""

from __future__ import annotations

import re
from functools import lru_cache

_CJK_RANGES = (("\u3040", "\u30ff"), ("\u3400", "\u4dbf"), ("\u4e00", "\u9fff"), ("\uf900", "\ufaff"))


def _cjk_char(ch: str) -> bool:
    return any(lo <= ch <= hi for lo, hi in _CJK_RANGES)


def _cjk_run(word: str) -> bool:
    """A word of CJK characters only. Tested in Python: the terms are short, and the
    character class's pattern costs 2 ms to compile, at every command's start."""
    return bool(word) and all(map(_cjk_char, word))


@lru_cache(maxsize=1)
def _cjk_runs() -> re.Pattern[str]:
    return re.compile("[" + "".join(f"{lo}-{hi}" for lo, hi in _CJK_RANGES) + "]+")


_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "can",
        "do",
        "does",
        "did",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "too",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)


def query_terms(text: str, phrases: tuple[str, ...] | list[str] = ()) -> list[str]:
    """The terms worth marking: quoted phrases, then words that are not stopwords."""
    terms = [p for p in phrases if p.strip()]
    for word in _WORD.findall(text):
        if _cjk_run(word) or (len(word) >= 2 and word.casefold() not in STOPWORDS):
            terms.append(word)
    if any(map(_cjk_char, text)):
        terms += _cjk_runs().findall(text)
    return list(dict.fromkeys(terms))


@lru_cache(maxsize=256)
def _latin_pattern(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![^\W_]){re.escape(term)}[^\W_]*", re.IGNORECASE)


def _cjk_spans(text: str, run: str) -> list[tuple[int, int]]:
    pieces = {run[i:j] for i in range(len(run)) for j in range(i + 2, len(run) + 1)}
    if len(run) == 1:
        pieces = {run}
    longest = max((len(p) for p in pieces), default=0)
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        for size in range(min(longest, len(text) - i), 0, -1):
            if text[i : i + size] in pieces:
                spans.append((i, i + size))
                i += size
                break
        else:
            i += 1
    return spans


def match_spans(text: str, terms: list[str]) -> list[tuple[int, int]]:
    """Sorted, non-overlapping (start, end) spans of `terms` in `text`."""
    spans: list[tuple[int, int]] = []
    for term in terms:
        if _cjk_run(term):
            spans.extend(_cjk_spans(text, term))
        elif " " in term.strip():  # a phrase: verbatim, case-insensitive
            spans.extend(m.span() for m in re.finditer(re.escape(term), text, re.IGNORECASE))
        else:
            spans.extend(m.span() for m in _latin_pattern(term).finditer(text))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
