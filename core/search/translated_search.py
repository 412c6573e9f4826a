"""An English query's search of Chinese texts by its translated words (translate.py):
when it is asked, how, and what its hits are worth as keywords."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from convo_tui.core.index.text_lang import LANG_CJK
from convo_tui.core.search import fusion, meaning, translate
from convo_tui.core.search.fusion import DenseScale
from convo_tui.core.search.query import ParsedQuery
from convo_tui.core.search.request import Embedders, point_terms
from convo_tui.core.search.translate import TranslatedQuery
from convo_tui.core.store.base import Cond, Filter, Query, Scored

if TYPE_CHECKING:
    from convo_tui.core.embed.sparse import SparseEmbedder

# For a query with no filters of its own, the translated search asks Edge for Chinese
# texts by `lang` alone, this many more of them, and keeps the visible turns and
# messages itself: Edge checks every condition on each candidate of the translations'
# postings, and `visible` and `level` made the search 37 ms instead of 8 at a
# million messages (BENCHMARKS.md, "Eleventh session"). The extra hits cover the
# ones dropped here (only points being replaced are Chinese and not visible).
TRANSLATED_SPARE = 32


def prepare(sparse: SparseEmbedder) -> None:
    """Read now what a process's first translated search reads: the translation
    table and its words' vectors (and, for a query in Chinese, the tokenizer's
    Chinese dictionary). Under a model that reads Chinese every hybrid query in
    Latin script makes one, and the app's first query at a million messages took
    272-283 ms instead of ~110 (BENCHMARKS.md, "Twenty-fifth session"); the app
    and the holder load the model in the background, which is the time for it."""
    translate.translation_vectors(sparse.embed_query, sparse.version)
    sparse.read_cjk_dictionary()


@dataclass(frozen=True)
class TranslatedSearch:
    """One query's translated search: one store query for both levels."""

    parsed: ParsedQuery
    query: TranslatedQuery

    @classmethod
    def of(cls, embedders: Embedders, parsed: ParsedQuery, query_lang: str, scale: DenseScale) -> TranslatedSearch | None:
        """For a Latin-script query in weighted hybrid on a model that reads Chinese:
        its words in Chinese, to give Chinese texts a keyword part; else None."""
        if fusion.TRANSLATED_WEIGHT <= 0 or not scale.cjk or query_lang == LANG_CJK or fusion.METHOD != "weighted":
            return None
        sparse = embedders.sparse
        embed = translate.translation_vectors(sparse.embed_query, sparse.version)
        found = translate.translated_query(translate.translate(parsed.text), embed)
        return cls(parsed, found) if found is not None else None

    @property
    def unfiltered(self) -> bool:
        """The query's store filter is only the `visible` every search has."""
        return self.parsed.store_filter() == Filter(must=(Cond("visible", value=True),))

    def request(self, levels: Sequence[str], depth: int) -> Query:
        limit = depth * len(levels)
        if self.unfiltered:
            flt = Filter(must=(Cond("lang", value=LANG_CJK),))
            return Query(sparse=self.query.vector, filter=flt, limit=limit + TRANSLATED_SPARE, with_dense=True, with_terms=True)
        cjk = meaning.partition_filters(self.parsed.store_filter().and_(Cond("level", any=tuple(levels))))[0]
        return Query(sparse=self.query.vector, filter=cjk, limit=limit, with_dense=True, with_terms=True)

    def found(self, hits: list[Scored], levels: Sequence[str], depth: int) -> list[Scored]:
        """The request's hits that are visible turns or messages of `levels`, best first."""
        if not self.unfiltered:
            return hits
        kept = [p for p in hits if p.payload.get("visible") is True and p.payload.get("level") in levels]
        return kept[: depth * len(levels)]

    def relevance(self, embedders: Embedders, points: Sequence[Scored]) -> dict[str, float]:
        """Keyword relevance of the Chinese texts the translated query found (translate.relevance)."""
        return translate.relevance(self.query, [(p.id, p.score, point_terms(embedders, p)) for p in points])
