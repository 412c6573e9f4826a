"""Format drift: the parts of a file a reader met and does not know.

A tool's new version adds an event type, a content part or a field; a reader
that skips it silently loses what it held, and nobody notices until a user
cannot find a session. Readers call `unknown("event", kind)` (or `part`,
`field`, `record`) where they meet something they have no rule for; while
`collecting()` is active (`parse_file` makes it so) the counts are kept for
the file being parsed and end up in the index's manifest, where
`convo-tui sources` reports them per source. Outside it the calls cost nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

# Names longer than this are cut: a value from a file never grows the manifest much.
_NAME_LIMIT = 80
# Distinct unknown names kept per file (their counts still add up in "other").
_NAMES_PER_FILE = 50

_active: ContextVar[Counter[str] | None] = ContextVar("unknown_parts", default=None)


def unknown(kind: str, name: Any, count: int = 1) -> None:
    """Count one part of kind `kind` ("event", "part", "field", "record") named `name` that the reader does not know."""
    found = _active.get()
    if found is None or count <= 0:
        return
    label = name if isinstance(name, str) else type(name).__name__
    key = f"{kind}:{label[:_NAME_LIMIT]}"
    if key not in found and len(found) >= _NAMES_PER_FILE:
        key = f"{kind}:(other)"
    found[key] += count


def unknown_fields(record: Mapping[str, Any], known: Iterable[str], where: str) -> None:
    """Count each key of `record` outside `known` as an unknown field `where.key`."""
    if _active.get() is None:
        return
    expected = set(known)
    for key in record:
        if key not in expected:
            unknown("field", f"{where}.{key}")


@contextmanager
def collecting() -> Iterator[Counter[str]]:
    """Count the unknown parts met inside the block (nested blocks count apart)."""
    found: Counter[str] = Counter()
    token = _active.set(found)
    try:
        yield found
    finally:
        _active.reset(token)


def describe(counts: Mapping[str, int], most: int = 3) -> str:
    """`event foo ×30, part bar ×11` for the most frequent unknown names."""
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:most]
    words = [f"{key.replace(':', ' ', 1)} ×{count}" for key, count in ranked]
    rest = len(counts) - len(ranked)
    return ", ".join(words) + (f" and {rest} more" if rest > 0 else "")
