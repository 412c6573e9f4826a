"""Whether a query means anything to the index: a dense model always has nearest
neighbours, so a query none of whose words the index holds is answered only when
it stands out by meaning (pipeline.py asks before it shows meaning-only cards)."""

from __future__ import annotations

from collections.abc import Sequence

from convo_tui.core.index.points import LEVEL_TURN
from convo_tui.core.index.text_lang import cjk_count
from convo_tui.core.search.fusion import DenseScale
from convo_tui.core.search.query import ParsedQuery
from convo_tui.core.search.request import Embedders, embedded, level_filter
from convo_tui.core.store.base import Cond, Filter, Query, SparseVec, Store


def knows_a_word(store: Store, embedders: Embedders, parsed: ParsedQuery, sparse: SparseVec | None, mode: str) -> bool:
    """Whether a keyword term of the query occurs anywhere in the index (whatever the
    filters). A dense model always has nearest neighbours, even for a mash of letters
    (e5 puts short "continue" turns at cosine 0.85 of anything), so a query none of
    whose words the index holds must also stand out by meaning (`stands_out`): a
    Chinese question about English-only history and an English paraphrase in other
    words do, nonsense does not. A query with no keyword term at all (stopwords only)
    is left to the dense floor."""
    terms = sparse if mode == "hybrid" else embedders.sparse.embed_query(parsed.text)
    if terms is None or not terms.indices:
        return True
    anywhere = Filter(must=(Cond("visible", value=True),))
    return bool(store.query([Query(sparse=terms, filter=anywhere, limit=1)])[0])


def stands_out(store: Store, parsed: ParsedQuery, dense: Sequence[float], scale: DenseScale) -> bool:
    """For a query the index holds no word of: its nearest turn (in its filters) is
    near enough, and ahead of the next one, to be an answer rather than the noise
    every query has (`DenseScale.unknown_words`: best cosine plus its lead over the
    second). Never for Chinese, Japanese or Korean on a model that cannot read them."""
    if not scale.cjk and cjk_count(parsed.text):
        return False
    best = store.query([Query(dense=dense, filter=embedded(level_filter(parsed, LEVEL_TURN)), limit=2, fields=("key",))])[0]
    if not best:
        return False
    first = best[0].score
    second = best[1].score if len(best) > 1 else scale.floor
    return first + (first - second) >= scale.unknown_words
