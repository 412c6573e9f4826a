"""How many points a search can see (`visible`) that match one field's value,
and how much of the index is found by meaning. (Light on purpose: a search,
a listing and `show` import it, and not the indexing pipeline.)

Counted as one filter (`visible` and the field), the first count of a process
is slow at a million messages: Edge's load drops the pages of its on-disk
payload indexes from the page cache, and the count then checks `visible` for
each of the field's points, reading those pages back from disk (0.78 s for the
42,110 sessions of a million messages; BENCHMARKS.md, seventh session). The
same number is the field's own count, answered from its index (14 ms), less
the hidden points that match, which are few: a batch written but not yet
published, or left by a run killed before it published them (1 ms).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from convo_tui.core.store.base import Cond, Filter, Store

_HIDDEN = Filter(must=(Cond("visible", value=False),))


def count_visible(store: Store, field: str, value: Any) -> int:
    everything = store.count(Filter(must=(Cond(field, value=value),)))
    if not everything:
        return 0
    hidden = sum(1 for point in store.scroll(_HIDDEN, fields=[field], batch=2048) if point.payload.get(field) == value)
    return everything - hidden


def visible_filter(*conds: Cond) -> Filter:
    """The points a search may see (published), and `conds`."""
    return Filter(must=(Cond("visible", value=True), *conds))


@dataclass
class SemanticStatus:
    """How much of the index is found by meaning: `ready` of `total` text points."""

    ready: int
    total: int

    @property
    def fraction(self) -> float:
        return 1.0 if self.total == 0 else self.ready / self.total


def semantic_status(store: Store) -> SemanticStatus:
    pending = count_visible(store, "dense_ready", False)
    ready = count_visible(store, "dense_ready", True)
    return SemanticStatus(ready, ready + pending)
