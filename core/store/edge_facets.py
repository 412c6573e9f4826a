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
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from typing import Any

from convo_tui.core.store.base import PAYLOAD_INDEXES, Cond, Filter

FACETS = "facets"
# Set when the point is written and never changed (`visible` and `dense_ready`
# are set later, `generation` and `timestamp` are compared as numbers, `key`
# and `session_id` have a value a point or a session: they keep their indexes).
FACETED = frozenset({"level", "project", "source", "role", "tool_keys", "machine", "has_tools", "lang"})
_FIELD_ORDER = tuple(sorted(FACETED))
# The indexes of a shard in this layout: the other fields' own, and `facets`.
FACETED_INDEXES: dict[str, str] = {**{k: v for k, v in PAYLOAD_INDEXES.items() if k not in FACETED}, FACETS: "facet"}


def faceted(schema: Mapping[str, Any]) -> bool:
    """Whether a shard whose payload indexes are `schema` keeps the faceted fields
    in `facets`: yes when it has that index, or no index yet (a new shard)."""
    return FACETS in schema or not schema


def indexes(is_faceted: bool) -> dict[str, str]:
    return FACETED_INDEXES if is_faceted else PAYLOAD_INDEXES


def facet(field: str, value: Any) -> int:
    """The facet of one value of a field: a signed 64-bit hash (Edge's integers)."""
    if isinstance(value, bool):  # stored as 0/1 (edge_schema.BOOL_FIELDS): a filter may say either
        value = int(value)
    return _hashed(f"{field}={value}")


@functools.lru_cache(maxsize=65536)  # a history has few distinct values: a writer hashes each once
def _hashed(text: str) -> int:
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def facets_of(payload: Mapping[str, Any]) -> list[int]:
    """A payload's facets: one per value of each faceted field it holds (one per
    element of a list field, `tool_keys`)."""
    out: list[int] = []
    for field in _FIELD_ORDER:
        value = payload.get(field)
        if value is None:
            continue
        values = value if isinstance(value, list) else [value]
        out.extend(facet(field, v) for v in values if v is not None)
    return out


def _cond(c: Cond) -> Cond:
    if c.key not in FACETED:
        return c
    if c.value is not None:
        return Cond(FACETS, value=facet(c.key, c.value))
    if c.any:
        return Cond(FACETS, any=tuple(facet(c.key, v) for v in c.any))
    raise ValueError(f"condition on {c.key!r}: only a value or a list of values can be asked of it")


def faceted_filter(flt: Filter | None) -> Filter | None:
    """`flt` with its conditions on faceted fields made conditions on `facets`
    (the same points match: a field holding `v` is the facet `field=v`)."""
    if flt is None:
        return None
    return Filter(must=tuple(_cond(c) for c in flt.must), must_not=tuple(_cond(c) for c in flt.must_not))
