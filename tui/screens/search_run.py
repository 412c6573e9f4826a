"""The searches one query makes, run in the search screen's worker thread.

A hybrid query typed anew may show its keyword pass first, then its hybrid
results, which replace them with the reader's selection kept (the screen's
`_follow`). That pays only when hybrid search is slow: the keyword pass plus
painting its cards (about 45 ms) delay the hybrid cards, and the first cards
come sooner only by what the hybrid search costs over the keyword one. So the
keyword pass runs only while the screen's last hybrid search took over
`HybridPace.slow_ms`, the 150 ms within which results should follow a key: a
big history, a loaded machine, phase 2 embedding in the same process. Measured
in the app (BENCHMARKS.md, "Fourteenth session"): with the pass on every query,
the hybrid cards came 30-45 ms later at 10k messages (in the app a hybrid search
takes 45-100 ms there) and 90 ms later in an earlier run; at 150 ms the 10k
figures are those of no keyword pass. A key typed during the keyword pass skips
the hybrid one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from convo_tui.core.errors import ConvoError
from convo_tui.core.search.query import filters_match
from convo_tui.tui.messages import SearchOutcome
from convo_tui.tui.screens.search_empty import DENSE_MODES

if TYPE_CHECKING:
    from convo_tui.core.engine import Engine


class HybridPace:
    """How long this screen's last hybrid search took: a keyword pass first only pays when it was slow."""

    slow_ms = 150.0  # over this, the hybrid cards alone would miss the 150 ms a keystroke may take (issue 25)

    def __init__(self) -> None:
        self.last_ms: float | None = None  # None: no hybrid search yet (the first is the slowest: the model warms up)

    @property
    def slow(self) -> bool:
        return self.last_ms is None or self.last_ms > self.slow_ms

    def record(self, seconds: float) -> None:
        self.last_ms = seconds * 1000.0


def search_passes(
    library: Engine,
    query: str,
    mode: str,
    *,
    model_ready: bool,
    generation: int,
    limit: int,
    follow: bool = False,
    early: bool = False,
    pace: HybridPace | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> Iterator[SearchOutcome]:
    """The outcomes to show, in order: with `early`, while `pace` says hybrid search
    is slow, a hybrid query's keyword pass when it found something (nothing found by
    keyword is no answer yet: meaning may find it), then the search in `mode`.
    Nothing more once `cancelled()`: a newer key replaced this query before its
    slower pass. Without the model, the dense modes answer by keyword."""
    pace = pace or HybridPace()
    used = mode if (mode not in DENSE_MODES or model_ready) else "keyword"
    try:
        if early and used == "hybrid" and pace.slow:
            first = library.search(query, limit=limit, mode="keyword")
            if cancelled():
                return
            if first:
                yield SearchOutcome(query, mode, first, generation=generation, limit=limit, early=True)
        started = time.perf_counter()
        hits = library.search(query, limit=limit, mode=used)
        if used == "hybrid":
            pace.record(time.perf_counter() - started)
        outcome = SearchOutcome(query, mode, hits, generation=generation, limit=limit, follow=follow)
        if not hits:
            outcome.filters_match = filters_match(library, query)
    except ConvoError as exc:
        outcome = SearchOutcome(query, mode, [], error=str(exc), generation=generation, limit=limit)
    yield outcome
