"""A cheap deterministic dense embedder for the store-only scale figures.

Building a 100,000-point index with the real model takes about an hour on two
cores; the store's search cost does not depend on where the vectors came from,
only on their count and dimension. So scale builds hash words into the model's
dimension (feature hashing: same words -> nearby vectors, unit length) and the
table labels every figure built this way. Query embedding at search time stays
real where the figure says "real query embedding".
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np
from convo_tui.core.embed.bundled import DEFAULT_DIM

_WORD = re.compile(r"\w+", re.UNICODE)


class CheapEmbedder:
    """Same surface as core.embed.DenseEmbedder, a thousand times cheaper."""

    def __init__(
        self, dim: int = DEFAULT_DIM, name: str = "all-MiniLM-L6-v2-int8", tokenizer: object | None = None, window: int = 256
    ):
        # The real model's name, so the index's meta matches and the app opens it.
        self.name = name
        self.dim = dim
        self.tokenizer = tokenizer
        self.window = window
        self.batch_size = 256
        self._cache: dict[str, tuple[int, float]] = {}

    def _slot(self, word: str) -> tuple[int, float]:
        hit = self._cache.get(word)
        if hit is None:
            digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            hit = (value % self.dim, 1.0 if (value >> 32) & 1 else -1.0)
            if len(self._cache) < 200_000:
                self._cache[word] = hit
        return hit

    def _vector(self, text: str) -> list[float]:
        vec = np.zeros(self.dim, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            index, sign = self._slot(word)
            vec[index] += sign
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:
            vec[0] = 1.0
            norm = 1.0
        return (vec / norm).tolist()

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)
