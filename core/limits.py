"""The largest whole number convo-tui accepts: one maximum for every face.

A page size (`search --limit`, `search_limit` in the settings, MCP `limit`), a
count of messages (`context --recent`, `--refs`) or a position (a page's
`offset`, MCP `first_turn`) outside 0..MAX_COUNT is refused with one line
naming the value, by the command line, the settings, MCP and the holder's door
(core/holder/ops.py) alike; inside the engine, counts derived from these are
clamped to it.
"""

from __future__ import annotations

from convo_tui.core.errors import ConvoError, shown

MAX_COUNT = 100_000


def check_count(name: str, value: object, *, minimum: int = 0) -> int:
    """`value` if it is a whole number from `minimum` to MAX_COUNT, else a
    one-line ConvoError naming `name` and the range."""
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= MAX_COUNT:
        raise ConvoError(f"{name} must be a whole number from {minimum} to {MAX_COUNT:,} (got {shown(value, 40)})")
    return value
