"""Which script carries a text: what dense points record as `lang` and what a
query is compared by.

A multilingual model scores same-language pairs higher than equally relevant
cross-language ones, so search aligns the two (core/search/meaning.py,
pipeline.py, translated_search.py); dense points get `lang` when they are made
(core/index/points.py).
"""

from __future__ import annotations

import re

LANG_CJK = "cjk"
LANG_LATIN = "latin"
CJK_TEXT_SHARE = 0.3
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def text_lang(text: str) -> str:
    """ "cjk" when CJK characters are at least CJK_TEXT_SHARE of (CJK characters +
    Latin words): a character of Chinese carries about what a word of English does."""
    cjk = len(_CJK_CHAR.findall(text))
    if not cjk:
        return LANG_LATIN
    words = len(_LATIN_WORD.findall(text))
    return LANG_CJK if cjk / (cjk + words) >= CJK_TEXT_SHARE else LANG_LATIN
