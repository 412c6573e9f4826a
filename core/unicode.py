"""Text every UTF-8 encoder takes: lone UTF-16 surrogates replaced by U+FFFD.

A str can hold a surrogate that is half of no pair: JSON spells one as "\\ud83d"
when a tool cut an emoji in two, and Python decodes a command-line argument or a
file name that is not UTF-8 with `surrogateescape` ("\\udcff" for the byte 0xff).
The keyword model, the tokenizers, SQLite and the terminal all refuse such text.
"""

from __future__ import annotations

import re

_LONE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def without_lone_surrogates(text: str, replacement: str = REPLACEMENT) -> tuple[str, int]:
    """`text` with each lone surrogate replaced, and how many there were."""
    if text.isascii():  # O(1) in CPython: the common case costs nothing
        return text, 0
    return _LONE.subn(replacement, text)
