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

from collections.abc import Callable
from typing import Any

from convo_tui.core.model import Session
from convo_tui.core.unicode import without_lone_surrogates as _fixed


def fix_strings(root: Any, fix: Callable[[str], tuple[str, int]] = _fixed) -> int:
    """A tool call's arguments: every string in nested dicts and lists, keys too, fixed in
    place by `fix` (the text and how many it changed). A loop, not recursion: JSON nested
    950 deep parses, and a walk of it called from deep in the indexer's stack would end
    in a RecursionError."""
    total = 0
    stack = [root]
    while stack:
        node = stack.pop()
        slots = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        for slot, item in slots:
            if isinstance(item, str):
                fixed, n = fix(item)
                if n:
                    node[slot] = fixed
                    total += n
            elif isinstance(item, dict | list):
                stack.append(item)
        if isinstance(node, dict):
            for key in [k for k in node if isinstance(k, str)]:
                fixed, n = fix(key)
                if n and fixed not in node:  # never over another key's value
                    node[fixed] = node.pop(key)
                    total += n
    return total


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
            c = fix_strings(tool.args) if isinstance(tool.args, dict | list) else 0
            total += a + b + c
    return total


def note(path: object, count: int) -> str:
    return f"{path}: {count} lone UTF-16 surrogate{'s' * (count != 1)} replaced (half of a character cut in two)"
