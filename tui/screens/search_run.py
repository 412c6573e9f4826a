"""The searches one query makes, run in the search screen's worker thread.

A hybrid query typed anew shows its keyword pass first, then its hybrid results,
which replace them with the reader's selection kept (the screen's `_follow`).
The keyword search is a fraction of the hybrid one (28 against 103 ms at a
million messages, in process): at 100k messages the first cards came 10-30%
sooner in the app, at 10k and at a million no sooner, and the hybrid ones 30-90 ms later
(BENCHMARKS.md, "Thirteenth session"). A key typed during the keyword pass
skips the hybrid one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from convo_tui.core.errors import ConvoError
from convo_tui.tui.messages import SearchOutcome
from convo_tui.tui.screens.search_empty import DENSE_MODES, filters_match

if TYPE_CHECKING:
    from convo_tui.core.engine import Engine


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
    cancelled: Callable[[], bool] = lambda: False,
) -> Iterator[SearchOutcome]:
    """The outcomes to show, in order: with `early`, a hybrid query's keyword pass
    when it found something (nothing found by keyword is no answer yet: meaning may
    find it), then the search in `mode`. Nothing more once `cancelled()`: a newer
    key replaced this query before its slower pass. Without the model, the dense
    modes answer by keyword."""
    used = mode if (mode not in DENSE_MODES or model_ready) else "keyword"
    try:
        if early and used == "hybrid":
            first = library.search(query, limit=limit, mode="keyword")
            if cancelled():
                return
            if first:
                yield SearchOutcome(query, mode, first, generation=generation, limit=limit, early=True)
        hits = library.search(query, limit=limit, mode=used)
        outcome = SearchOutcome(query, mode, hits, generation=generation, limit=limit, follow=follow)
        if not hits:
            outcome.filters_match = filters_match(library, query)
    except ConvoError as exc:
        outcome = SearchOutcome(query, mode, [], error=str(exc), generation=generation, limit=limit)
    yield outcome
