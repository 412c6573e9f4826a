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
_CJK_RANGES = (("\u3040", "\u30ff"), ("\u3400", "\u9fff"), ("\uac00", "\ud7af"), ("\uf900", "\ufaff"))
_CJK_CLASS = "[" + "".join(f"{lo}-{hi}" for lo, hi in _CJK_RANGES) + "]"
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
# Up to this length a text's CJK characters are counted in Python: a search asks for
# its query's language, and compiling the character class costs 5 ms (its ranges
# span 40,000 code points), more than the command's whole search at 10k messages.
_SHORT = 256


@cache
def _cjk_chars() -> re.Pattern[str]:
    return re.compile(_CJK_CLASS)


def cjk_count(text: str) -> int:
    """How many CJK characters (kana, CJK ideographs, Hangul) `text` holds."""
    if len(text) > _SHORT:
        return len(_cjk_chars().findall(text))
    return sum(1 for ch in text if any(lo <= ch <= hi for lo, hi in _CJK_RANGES))


def text_lang(text: str) -> str:
    """ "cjk" when CJK characters are at least CJK_TEXT_SHARE of (CJK characters +
    Latin words): a character of Chinese carries about what a word of English does."""
    cjk = cjk_count(text)
    if not cjk:
        return LANG_LATIN
    words = len(_LATIN_WORD.findall(text))
    return LANG_CJK if cjk / (cjk + words) >= CJK_TEXT_SHARE else LANG_LATIN
