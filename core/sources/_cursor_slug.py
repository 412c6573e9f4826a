"""Cursor project slugs (`Users-alice-code-cocursor`) back to a project name.

Cursor names `~/.cursor/projects/<slug>/` after the workspace path with every
separator turned into `-`, so `code/my-app` and `code-my/app` give the same
slug: the slug alone cannot say where a folder name with dashes begins.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

_SEPARATORS = re.compile(r"[^0-9A-Za-z]+")
# Bounds the folder walk on odd slugs; a real path resolves in a handful of steps.
_MAX_LISTINGS = 200


def _words(name: str) -> list[str]:
    return [word for word in _SEPARATORS.split(name) if word]


def decode_slug(slug: str, root: str = os.sep) -> str:
    """The project folder name a Cursor slug stands for.

    Rule: if the workspace still exists on this machine, walk the disk from
    `root`, matching folder names against the slug's words (longest name
    first, so `my-app` beats `my`), and answer the real folder's name, dashes
    and all. Otherwise (moved, deleted, another machine) answer the slug's last
    word: right for the common `Users-<me>-<folder>-<project>` without dashes,
    and a short, recognisable guess for the rest.
    """
    resolved = resolve_slug(slug, root)
    if resolved:
        return os.path.basename(resolved)
    words = _words(slug)
    return words[-1] if words else slug


@lru_cache(maxsize=512)
def resolve_slug(slug: str, root: str = os.sep) -> str | None:
    """The existing folder under `root` whose path slugifies to `slug`, if any."""
    words = _words(slug)
    if not words:
        return None
    budget = [_MAX_LISTINGS]

    def walk(folder: str, start: int) -> str | None:
        if start == len(words):
            return folder
        if budget[0] <= 0:
            return None
        budget[0] -= 1
        try:
            with os.scandir(folder) as entries:
                names = [e.name for e in entries if e.is_dir(follow_symlinks=True)]
        except OSError:
            return None
        candidates = []
        for name in names:
            name_words = _words(name)
            end = start + len(name_words)
            if name_words and words[start:end] == name_words:
                candidates.append((len(name_words), name))
        for _, name in sorted(candidates, reverse=True):
            found = walk(os.path.join(folder, name), start + len(_words(name)))
            if found:
                return found
        return None

    return walk(root, 0)
