"""Lone UTF-16 surrogates in what a reader returns, replaced by U+FFFD.

JSON may spell a character as a pair of escapes ("\\ud83d\\ude00" is one emoji);
a tool that cuts a string between the two halves (a truncated tool output, a
title cut to N UTF-16 units) leaves one half alone, and `json.loads` returns a
str holding a lone surrogate. Nothing downstream can encode it as UTF-8: the
keyword model, the tokenizers, SQLite and the terminal each fail on it (an
`index` run ended in a traceback). The text a session shows and indexes is
repaired here, once, for every reader, and the session says how many were
replaced. Ids, paths, projects and working folders are left alone: there a
surrogate may stand for a byte of a file name that is not UTF-8 (Python's
`surrogateescape`), which the index keeps apart where it stores them.
"""

from __future__ import annotations

import re
from typing import Any

from convo_tui.core.model import Session

_LONE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def _fixed(text: str) -> tuple[str, int]:
    if text.isascii():  # O(1) in CPython: the common case costs nothing
        return text, 0
    return _LONE.subn(REPLACEMENT, text)


def _fixed_value(value: Any) -> tuple[Any, int]:
    """A tool call's arguments: strings anywhere in nested dicts and lists."""
    if isinstance(value, str):
        return _fixed(value)
    if isinstance(value, dict):
        total = 0
        out = {}
        for key, item in value.items():
            new_key, a = _fixed(key) if isinstance(key, str) else (key, 0)
            new_item, b = _fixed_value(item)
            out[new_key] = new_item
            total += a + b
        return (out, total) if total else (value, 0)
    if isinstance(value, list):
        pairs = [_fixed_value(item) for item in value]
        total = sum(n for _, n in pairs)
        return ([item for item, _ in pairs], total) if total else (value, 0)
    return value, 0


def repair(session: Session) -> int:
    """Replace the lone surrogates of `session`'s title and messages in place; how
    many its messages held (a title is cut from a message: not counted twice)."""
    session.title, _ = _fixed(session.title)
    total = 0
    for message in session.messages:
        message.text, n = _fixed(message.text)
        total += n
        message.thinking, n = _fixed(message.thinking)
        total += n
        if message.attachment is not None:
            message.attachment, n = _fixed(message.attachment)
            total += n
        for tool in message.tools:
            tool.name, a = _fixed(tool.name)
            tool.result, b = _fixed(tool.result)
            tool.args, c = _fixed_value(tool.args)
            total += a + b + c
    return total


def note(path: object, count: int) -> str:
    return f"{path}: {count} lone UTF-16 surrogate{'s' * (count != 1)} replaced (half of a character cut in two)"
