"""The bundled MiniLM run directly on onnxruntime + `tokenizers`, without fastembed.

fastembed and its imports (huggingface_hub, PIL, ...) cost ~40 MB of resident
memory and ~0.4 s of import in a process that only embeds one short query;
for the bundled model all fastembed did was tokenize, run the session, mean
pool and normalise. `MiniLmOnnx` does exactly those steps, the same way
(fastembed's `load_tokenizer` settings, its float64 pooling and its
normalisation), so vectors are the ones fastembed computed (tests/engine/test_embed.py).

The ONNX session is built once from a cached optimised graph (`build_session`).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import platformdirs
from convo_tui.core.embed.batching import exact_batches, run_all
from convo_tui.core.settings import APP_NAME

# onnxruntime's CPU memory arena (see session_options).
ARENA = False
# What the model reads at most; the pad token is [PAD] (id 0 in its vocabulary).
PAD_TOKEN = "[PAD]"
SPECIAL_TOKENS = ("[CLS]", "[SEP]", "[PAD]", "[UNK]", "[MASK]")
# Graph fusions MiniLM's sessions leave out. onnxruntime (1.32) fuses each
# residual Add and the LayerNormalization after it into SkipLayerNormalization,
# whose CPU kernel took 0.6 ms where the two ops it replaces take 0.15: without
# it MiniLM embeds 10-15% faster per text. In fp32 the vectors are the same to the
# last bit; on the int8 graph a few activations round the other way, which moved
# 2 hybrid and 4 semantic ranks of the hard relevance set's 232 and no figure of
# either set (BENCHMARKS.md, "Twenty-eighth session"). e5 keeps the fusion: its
# floors (fusion.SCALES) sit within 0.004 of answers that the other rounding moves.
MINILM_DISABLED_OPTIMIZERS = ("SkipLayerNormFusion",)


def optimized_graph_path(source: Path, model: str, disabled: tuple[str, ...] = ()) -> Path:
    """Where the optimised graph of `source` is cached, keyed by the file, onnxruntime's
    version and the fusions left out."""
    import onnxruntime as ort

    stat = source.stat()
    made = f"{source.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{ort.__version__}"
    if disabled:
        made += "|" + ",".join(disabled)
    key = hashlib.sha256(made.encode()).hexdigest()[:16]
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in model)
    return Path(platformdirs.user_cache_dir(APP_NAME)) / "onnx" / safe / f"model.opt-{key}.onnx"


def session_options(threads: int | None, arena: bool = ARENA) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    if threads is not None:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = threads
    # Without onnxruntime's CPU arena, the memory of a large batch goes back
    # when the batch is done instead of staying reserved for the process' life.
    options.enable_cpu_mem_arena = arena
    # The memory pattern pre-plans one block per input shape seen and keeps
    # it; texts come in every length, so it only holds memory (same speed).
    options.enable_mem_pattern = False
    # After each inference onnxruntime keeps its worker threads spinning for a
    # while; on a 2-core laptop they then compete with Qdrant's search for the
    # CPU and a search right after its query embedding takes several times
    # longer (measured: end-to-end p95 43 ms -> 15 ms at 20k points).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return options


def weights_path(graph: Path) -> Path:
    """The file beside a cached graph that holds its weights (mapped, not read, at load)."""
    return graph.with_name(f"{graph.stem}.{os.getpid()}.weights")


def build_session(
    source: Path, model: str, threads: int | None = None, arena: bool = ARENA, disabled: tuple[str, ...] = ()
) -> Any:
    """The model's ONNX session, built once, from a cached optimised graph when there is one.

    Optimising the int8 graph (fusions, constant folding) briefly needs ~80 MB
    more than the process keeps; the first build saves the result
    (`optimized_model_filepath`, extended level: no hardware-specific layouts)
    and later processes load it with optimisation off: lower peak, faster
    start, the same vectors. The saved weights go to a file of their own, which
    onnxruntime maps instead of copying: the 47 MB word-embedding table then
    costs only the rows a query's words touch (measured: peak 193 -> 122 MB
    for load plus a dozen queries). Where the cache cannot be written it is
    built as fastembed would (all optimisations, nothing saved). `disabled`:
    onnxruntime's fusions to leave out (MINILM_DISABLED_OPTIMIZERS).
    """
    import onnxruntime as ort

    providers = ["CPUExecutionProvider"]
    cached = optimized_graph_path(source, model, disabled)
    if cached.is_file():
        options = session_options(threads, arena)
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            return ort.InferenceSession(str(cached), sess_options=options, providers=providers)
        except Exception:  # a truncated or foreign cache file, or its weights gone: build it again below
            cached.unlink(missing_ok=True)
    try:
        return _build_and_cache(source, cached, threads, arena, disabled)
    except Exception:  # the cache could not be written (full disk, read-only cache folder)
        options = session_options(threads, arena)
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        return ort.InferenceSession(str(source), sess_options=options, providers=providers, disabled_optimizers=list(disabled))


def _build_and_cache(source: Path, cached: Path, threads: int | None, arena: bool, disabled: tuple[str, ...]) -> Any:
    """Build from `source`, saving the optimised graph and its weights; the graph
    is moved into place last, so a graph in the cache always has all its weights."""
    import onnxruntime as ort

    cached.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    for old in cached.parent.glob("model.opt-*"):  # other versions, a damaged graph, a crashed build's leftovers
        old.unlink(missing_ok=True)
    tmp = cached.with_name(f"{cached.name}.tmp{os.getpid()}")
    weights = weights_path(cached)
    options = session_options(threads, arena)
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(tmp)
    options.add_session_config_entry("session.optimized_model_external_initializers_file_name", weights.name)
    options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    try:
        session = ort.InferenceSession(
            str(source), sess_options=options, providers=["CPUExecutionProvider"], disabled_optimizers=list(disabled)
        )
        for path in (weights, tmp):
            _sync_and_uncache(path)
        os.replace(tmp, cached)
    except BaseException:
        tmp.unlink(missing_ok=True)
        weights.unlink(missing_ok=True)
        raise
    return session


def _sync_and_uncache(path: Path) -> None:
    """Flush a file just written and drop it from the page cache.

    Pages cached by the write sit in large folios, and a process that maps
    the file then gets whole folios mapped for every row it reads (the whole
    word table after a dozen queries); read back from disk, they come in
    page by page as rows are touched.
    """
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        if hasattr(os, "posix_fadvise"):
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def load_tokenizer(path: Path, window: int) -> Any:
    """The tokenizer as fastembed's `load_tokenizer` sets it up for this model.

    Truncation at the model's window (right side), the special tokens
    registered, padding to the longest text of a batch with [PAD].
    """
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    truncation = tokenizer.truncation or {}
    tokenizer.enable_truncation(max_length=window, direction=truncation.get("direction", "right"))
    tokenizer.add_special_tokens(list(SPECIAL_TOKENS))
    padding = tokenizer.padding or {}
    pad_token = padding.get("pad_token") or PAD_TOKEN
    pad_id = padding.get("pad_id", tokenizer.token_to_id(pad_token))
    tokenizer.enable_padding(
        direction=padding.get("direction", "right"),
        pad_id=pad_id,
        pad_type_id=padding.get("pad_type_id", 0),
        pad_token=pad_token,
        pad_to_multiple_of=padding.get("pad_to_multiple_of"),
        length=None,
    )
    return tokenizer


def mean_pool_normalized(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of the real tokens' states (float64 sum), L2-normalised, back to the model's dtype."""
    summed = np.sum(hidden, axis=1, where=mask[:, :, np.newaxis].astype(bool), dtype=np.float64)
    pooled = summed / np.maximum(np.sum(mask, axis=1, keepdims=True), 1e-9)
    norm = np.maximum(np.linalg.norm(pooled, ord=2, axis=1, keepdims=True), 1e-12)
    normalized: np.ndarray = (pooled / norm).astype(hidden.dtype, copy=False)
    return normalized


class MiniLmOnnx:
    """A mean-pooled, normalised sentence model: `embed` and `query_embed` as fastembed has them."""

    def __init__(
        self,
        onnx: Path,
        tokenizer: Path,
        model: str,
        window: int,
        threads: int | None = None,
        arena: bool = ARENA,
        runners: int = 1,
    ):
        self.session = build_session(onnx, model, threads, arena, MINILM_DISABLED_OPTIMIZERS)
        self.tokenizer = load_tokenizer(tokenizer, window)
        self._inputs = {node.name for node in self.session.get_inputs()}
        # `runners` > 1: documents are embedded by that many one-thread sessions side by
        # side (core/embed/batching.py, run_all), made on first use: a process that only
        # searches never needs them. 1: by `session`.
        self._runners = runners
        self._more_session = partial(build_session, onnx, model, 1, arena, MINILM_DISABLED_OPTIMIZERS)
        self._document_sessions: list[Any] = []
        self._sessions_lock = threading.Lock()

    def document_sessions(self) -> list[Any]:
        with self._sessions_lock:
            if not self._document_sessions:
                runners = self._runners
                self._document_sessions = [self._more_session() for _ in range(runners)] if runners > 1 else [self.session]
            return self._document_sessions

    def _run(self, texts: list[str]) -> np.ndarray:
        encoded = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        return self._forward(self.session, ids, mask)

    def embed_exact(self, texts: Sequence[str], budget: int) -> np.ndarray:
        """Vectors of `texts` in their order, run in groups of equal real length
        (core/embed/batching.py) of at most `budget` padded pieces."""
        encoded = self.tokenizer.encode_batch(list(texts))  # padded to the longest: sliced per group below
        lengths = [sum(e.attention_mask) for e in encoded]
        done: list[tuple[list[int], np.ndarray]] = []

        def run(session: Any, batch: list[int]) -> None:
            longest = max(lengths[i] for i in batch)
            ids = np.array([encoded[i].ids[:longest] for i in batch], dtype=np.int64)
            mask = np.array([encoded[i].attention_mask[:longest] for i in batch], dtype=np.int64)
            done.append((batch, self._forward(session, ids, mask)))

        run_all(self.document_sessions(), exact_batches(lengths, budget), run)
        if not done:
            return np.zeros((0, 0), dtype=np.float32)
        out = np.zeros((len(encoded), done[0][1].shape[1]), dtype=done[0][1].dtype)
        for batch, vectors in done:
            out[batch] = vectors
        return out

    def _forward(self, session: Any, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        feed = {"input_ids": ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feed)[0]
        return mean_pool_normalized(hidden, mask)

    def embed(self, texts: Iterable[str], batch_size: int = 64) -> Iterator[np.ndarray]:
        batch: list[str] = []
        for text in texts:
            batch.append(text)
            if len(batch) == batch_size:
                yield from self._run(batch)
                batch = []
        if batch:
            yield from self._run(batch)

    def query_embed(self, query: str | Sequence[str]) -> Iterator[np.ndarray]:
        yield from self.embed([query] if isinstance(query, str) else query)
