"""Which script carries a text: what dense points record as `lang` and what a
query is compared by.

A multilingual model scores same-language pairs higher than equally relevant
cross-language ones, so search aligns the two (core/search/meaning.py,
pipeline.py, translated_search.py); dense points get `lang` when they are made
(core/index/points.py).
"""

from __future__ import annotations

import re
from functools import cache

LANG_CJK = "cjk"
LANG_LATIN = "latin"
CJK_TEXT_SHARE = 0.3
# Kana, CJK ideographs, Hangul (compiled on first use: its ranges take 5 ms to compile).
_CJK_CLASS = "[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]"
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


@cache
def _cjk_chars() -> re.Pattern[str]:
    return re.compile(_CJK_CLASS)


def cjk_count(text: str) -> int:
    """How many CJK characters (kana, CJK ideographs, Hangul) `text` holds. Indexing
    asks it of every turn and chunk: ASCII (most texts, and a command's English
    query) is answered at once; the pattern, compiled the first time a text is not
    ASCII, counts the rest (a loop in Python took 100x as long)."""
    if text.isascii():
        return 0
    return len(_cjk_chars().findall(text))


def text_lang(text: str) -> str:
    """ "cjk" when CJK characters are at least CJK_TEXT_SHARE of (CJK characters +
    Latin words): a character of Chinese carries about what a word of English does."""
    cjk = cjk_count(text)
    if not cjk:
        return LANG_LATIN
    words = len(_LATIN_WORD.findall(text))
    return LANG_CJK if cjk / (cjk + words) >= CJK_TEXT_SHARE else LANG_LATIN
