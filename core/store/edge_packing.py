"""Most of a point's payload crosses into Edge as one JSON string.

qdrant-edge-py converts a payload from Python field by field, and each field
is dear: about 4 us a string and 3 us a list element, whatever their length
(a 20-character title costs what a 2,000-character text does). A message
point's 21 fields took 108 us, the largest part of phase 1's writer after
Edge's own merges. Packed, the fields no filter or index reads travel as one
string (`PACKED`): 51 us a point, and Edge's merges copy one value instead of
twenty (BENCHMARKS.md, "Twenty-first session").

What stays a field of its own: whatever a payload index or a filter reads (in
the layout of the shard: edge_facets.py), and the large values read on their
own (a session's record and tallies, a record part's messages), so that a read
of a few small fields never parses them. Reads take either form, so points
written before this and points written after it live in one index.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import qdrant_edge as qe
from convo_tui.core.store.base import PAYLOAD_INDEXES
from convo_tui.core.store.edge_facets import FACETED_INDEXES

PACKED = "packed"
# Read alone or filtered on without an index (`turn_index`: fuzzy mode's scope).
READ_ALONE = frozenset({"turn_index", "record_z", "record_parts", "record_part", "messages_z", "tally"})
# Fields of their own in every layout: a read asking only for these needs no unpacking.
ALWAYS_OWN = frozenset({*FACETED_INDEXES, *READ_ALONE})
_OWN = {True: ALWAYS_OWN, False: frozenset({*ALWAYS_OWN, *PAYLOAD_INDEXES})}
# Made once (json.dumps with options builds an encoder a call); NaN refused, as Edge refuses it in a field.
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def own_fields(is_faceted: bool) -> frozenset[str]:
    """The fields a point keeps as Edge fields in a shard of this layout."""
    return _OWN[is_faceted]


def pack(stored: dict[str, Any], is_faceted: bool) -> dict[str, Any]:
    """`stored` (a payload as Edge keeps it) with the fields that are not its own in one string."""
    own = _OWN[is_faceted]
    out: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for name, value in stored.items():
        (out if name in own else rest)[name] = value
    if rest:
        out[PACKED] = _encode(rest)
    return out


class PackedUnreadable(Exception):
    """A `packed` value that is not the JSON object written: damaged files
    (edge_schema.edge_errors names the index and the way out)."""


def unpack(stored: dict[str, Any], fields: Iterable[str] | None = None) -> dict[str, Any]:
    """A payload as written, from Edge's form of it; only `fields` when they are
    given. Fields of their own win over packed ones (set_payload writes those)."""
    packed = stored.get(PACKED)
    if packed is None:
        return stored if fields is None else {name: stored[name] for name in fields if name in stored}
    try:
        out = json.loads(packed)
    except ValueError as exc:
        raise PackedUnreadable(f"a point's packed payload is unreadable ({exc})") from None
    if not isinstance(out, dict):
        raise PackedUnreadable("a point's packed payload is not an object")
    out.update((name, value) for name, value in stored.items() if name != PACKED)
    if fields is not None:
        return {name: out[name] for name in fields if name in out}
    return out


def selector(fields: Iterable[str] | None, whole: Any, is_faceted: bool) -> Any:
    """What to ask Edge for to read `fields` of a point (`whole` when None), in a
    shard of this layout: `packed` only when one of them may be in it."""
    if fields is None:
        return whole
    wanted = list(dict.fromkeys(fields))
    if not _OWN[is_faceted].issuperset(wanted):
        wanted.append(PACKED)
    return qe.PayloadSelector.Include(wanted)


def packed_keys(keys: Iterable[str], is_faceted: bool) -> set[str]:
    """Those of `keys` (a filter's fields, in the shard's layout) that Edge
    cannot see, being packed: a filter on one would match nothing."""
    return set(keys) - _OWN[is_faceted]
