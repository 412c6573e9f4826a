"""The sparse encoder: Qdrant's BM25, one vector per text, for keyword search."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from convo_tui.core.store.base import SparseVec


class SparseEmbedder:
    """Qdrant's BM25 with the multilingual tokenizer (CJK split into words).

    Documents carry term-frequency weights; the IDF part is applied by the
    store (the sparse vector is configured with the IDF modifier).
    """

    NAME = "bm25-multilingual"

    def __init__(self) -> None:
        from qdrant_edge import Bm25, Bm25Config, TokenizerType

        self._bm25 = Bm25(Bm25Config(tokenizer=TokenizerType.Multilingual))

    def __reduce__(self) -> tuple[type[SparseEmbedder], tuple[()]]:
        """Pickled by name: phase 1's reader process makes its own (Edge's model is not picklable)."""
        return (SparseEmbedder, ())

    @property
    def version(self) -> str:
        """This encoder and the Edge release that tokenizes: token ids cached across
        processes are good for as long as both stay the same (translate.py)."""
        return f"{self.NAME}-{_edge_version()}"

    def read_cjk_dictionary(self) -> None:
        """Have the tokenizer read its Chinese/Japanese/Korean dictionary now: it
        does on the first such text it meets, which takes 160 ms."""
        self._bm25.embed_query("中文")

    def embed_document(self, text: str) -> SparseVec:
        vec = self._bm25.embed_document(text)
        return SparseVec(list(vec.indices), list(vec.values))

    def embed_documents(self, texts: Sequence[str]) -> list[SparseVec]:
        return [self.embed_document(text) for text in texts]

    def embed_query(self, text: str) -> SparseVec:
        vec = self._bm25.embed_query(text)
        return SparseVec(list(vec.indices), list(vec.values))


@functools.cache
def _edge_version() -> str:
    """Read once: a hybrid query under a model that reads Chinese asks for it, and
    the package metadata is looked up on the disk each time (0.26 ms)."""
    from importlib.metadata import version

    return version("qdrant-edge-py")
