"""The fields a filter only tests for a value, held by one Edge index.

Edge gives every payload index of every segment a null index: two flag files
of at least 1 MB each, mostly holes, whose every page its load faults in one
by one. That is about 4 ms an index a segment, so with fourteen indexes most of
a cold command's time went to opening the shard (0.90 of 1.55 s at 100k
messages, 16 segments; BENCHMARKS.md, "Eighteenth session"). The fields below
are written once with their point and filters only ask whether they hold a
value, so one integer index over `facets` answers them all: a point's facets
are 64-bit hashes of `"field=value"`, one per value, and a condition on such a
field becomes a condition on `facets`. Integers, not the strings themselves:
Edge checks a candidate's values one by one, and with strings every keyword
search (each filters on `level`) was a third slower at 100k messages; with
integers a filtered one is as fast as with an index a field, an unfiltered
one 0.6-0.8 ms slower of 8-15. Two of the few thousand distinct values
colliding in 64 bits is a chance of about 1 in 10^12.

The fields stay in the payload as they are (cards, listings and the qdrant
server backend read them); `facets` is Edge's own and never leaves the store.
A shard made before this keeps an index a field (`faceted` is false for it),
and `index --rebuild` gives it this layout (the vector cache keeps the dense
vectors already computed).

Later (twenty-sixth session) `key` and `session_id` joined them (FOLDED): they
too are written once with their point and only compared to values, and their
two indexes were two of the seven whose null flags every segment's load walks.
A key's value is its point's own, so the facets index holds a value a point:
that two of a million messages' 2.7 million points collide in 64 bits is a
chance of about 1 in 5 million. A lookup by key that met one would read a
point more, whose own `key` tells it apart (the readers keep the keys they
asked for); phase 2 marks what it embedded by key, and would mark the other
point too, which would then wait for no vector of its own. A shard whose
facets hold only the FACETED fields keeps those two indexes and works as
before.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from typing import Any

from convo_tui.core.store.base import PAYLOAD_INDEXES, Cond, Filter

FACETS = "facets"
# Set when the point is written and never changed (`visible` and `dense_ready`
# are set later, `generation` and `timestamp` are compared as numbers).
FACETED = frozenset({"level", "project", "source", "role", "tool_keys", "machine", "has_tools", "lang"})
# The fields a shard made from the twenty-sixth session on keeps in `facets`.
FOLDED = FACETED | {"key", "session_id"}
# The indexes of a shard in the faceted layout: the other fields' own, and `facets`.
FACETED_INDEXES: dict[str, str] = {**{k: v for k, v in PAYLOAD_INDEXES.items() if k not in FACETED}, FACETS: "facet"}
FOLDED_INDEXES: dict[str, str] = {k: v for k, v in FACETED_INDEXES.items() if k not in FOLDED}
# How much faster a rebuilt index opens than one of an older layout (faceted or
# not), as `index` tells its user. Edge's load of the 100k-message bench
# history's main shard, 16 segments: an index a field to FACETED 1.7x
# (BENCHMARKS.md, "Eighteenth session"), FACETED to FOLDED 1.3x in CPU time
# ("Twenty-sixth session"); the two together about 2x.
REBUILD_GAIN = {False: "2x", True: "1.3x"}
# A value a point: hashed as asked, not kept in _hashed's cache.
_UNIQUE = frozenset({"key"})


def layout(schema: Mapping[str, Any]) -> frozenset[str]:
    """The fields a shard whose payload indexes are `schema` keeps in `facets`:
    none (an index a field, the oldest layout), FACETED, or FOLDED (a new shard:
    no index yet)."""
    if not schema:
        return FOLDED
    if FACETS not in schema:
        return frozenset()
    return FACETED if "key" in schema else FOLDED


def indexes(fields: frozenset[str]) -> dict[str, str]:
    """The payload indexes of a shard whose facets hold `fields` (a `layout`)."""
    return {frozenset(): PAYLOAD_INDEXES, FACETED: FACETED_INDEXES, FOLDED: FOLDED_INDEXES}[fields]


def facet(field: str, value: Any) -> int:
    """The facet of one value of a field: a signed 64-bit hash (Edge's integers)."""
    if isinstance(value, bool):  # stored as 0/1 (edge_schema.BOOL_FIELDS): a filter may say either
        value = int(value)
    text = f"{field}={value}"
    return _digest(text) if field in _UNIQUE else _hashed(text)


def _digest(text: str) -> int:
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


# A history has few distinct values of the other fields: a writer hashes each once.
_hashed = functools.lru_cache(maxsize=65536)(_digest)


def facets_of(payload: Mapping[str, Any], fields: frozenset[str]) -> list[int]:
    """A payload's facets: one per value of each of `fields` it holds (one per
    element of a list field, `tool_keys`)."""
    out: list[int] = []
    for field in _order(fields):
        value = payload.get(field)
        if value is None:
            continue
        values = value if isinstance(value, list) else [value]
        out.extend(facet(field, v) for v in values if v is not None)
    return out


@functools.cache
def _order(fields: frozenset[str]) -> tuple[str, ...]:
    return tuple(sorted(fields))


def _cond(c: Cond, fields: frozenset[str]) -> Cond:
    if c.key not in fields:
        return c
    if c.value is not None:
        return Cond(FACETS, value=facet(c.key, c.value))
    if c.any:
        return Cond(FACETS, any=tuple(facet(c.key, v) for v in c.any))
    raise ValueError(f"condition on {c.key!r}: only a value or a list of values can be asked of it")


def faceted_filter(flt: Filter | None, fields: frozenset[str]) -> Filter | None:
    """`flt` with its conditions on the faceted `fields` made conditions on `facets`
    (the same points match: a field holding `v` is the facet `field=v`)."""
    if flt is None:
        return None
    return Filter(must=tuple(_cond(c, fields) for c in flt.must), must_not=tuple(_cond(c, fields) for c in flt.must_not))
