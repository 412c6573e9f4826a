"""The library's embedding models: which dense model the index uses, loading
it (slow, once) and the BM25 encoder (fast), and switching an index to another
dense model. Thread-safe: the app loads the model while keyword searches run."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from convo_tui.core.embed.choice import AUTO, ModelChoice, choose_model, pending_switch, sample_texts
from convo_tui.core.engine import ModelInfo
from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.index.progress import CancelLike, IndexProgress, ProgressFn, is_cancelled
from convo_tui.core.search.fusion import dense_scale
from convo_tui.core.search.request import Embedders
from convo_tui.core.settings import Settings
from convo_tui.core.store.base import Store

if TYPE_CHECKING:
    from convo_tui.core.embed.dense import DenseModel
    from convo_tui.core.embed.sparse import SparseEmbedder
    from convo_tui.core.index.model_switch import SwitchResult


class Models:
    def __init__(self, settings: Settings, store: Store):
        self.settings = settings
        self.store = store
        self._lock = threading.Lock()
        self.dense: DenseModel | None = None
        self.sparse: SparseEmbedder | None = None
        self._choice: ModelChoice | None = None
        # The history was measured for "auto" (choose_for): by a run, or before the first one.
        self._measured = False

    @property
    def ready(self) -> bool:
        return self.dense is not None

    def choice(self) -> ModelChoice:
        """The dense model searches use and why (`model = "auto"` picks by the
        history's languages; a model the index does not have yet waits for `index`)."""
        if self._choice is None:
            index_model = self.store.read_meta().get("model")
            target = choose_model(self.settings.model, index_model=index_model)
            self._choice = pending_switch(index_model, target) if index_model and index_model != target.model else target
        return self._choice

    def info(self) -> ModelInfo:
        choice = self.choice()
        return ModelInfo(model=choice.model, reason=choice.reason, ready=self.ready)

    def load(self, *, prepare_translation: bool = False) -> None:
        """Load the dense model (seconds) outside the lock keyword searches take, then adopt it.
        `prepare_translation`: a process that will search for a while (the app, a
        holder) reads what translated searches need too (translated_search.prepare)."""
        while self.dense is None:
            from convo_tui.core.embed.dense import release_shared, shared_dense
            from convo_tui.core.heap import keep_large_buffers_mapped

            keep_large_buffers_mapped()  # the model's large buffers go back when freed (core/heap.py)
            name = self.choice().model
            dense = shared_dense(name)
            self.load_sparse()
            with self._lock:
                if self.dense is None and self.choice().model == name:
                    self.dense = dense
                    break
            # A run chose another model meanwhile (choose_for): load that one instead.
            if self.dense is None or self.dense.name != name:
                release_shared(name)
        if prepare_translation:
            self._prepare_translation()

    def _prepare_translation(self) -> None:
        dense, sparse = self.dense, self.sparse
        if dense is None or sparse is None or not dense_scale(dense.name).cjk:
            return  # a model that reads no Chinese makes no translated search
        from convo_tui.core.search.translated_search import prepare

        # After `ready`: a search meanwhile reads them itself. What fails here fails
        # again, and is reported, in the first search that needs it.
        with contextlib.suppress(Exception):
            prepare(sparse)

    def load_sparse(self) -> None:
        with self._lock:
            if self.sparse is None:
                from convo_tui.core.embed.sparse import SparseEmbedder

                self.sparse = SparseEmbedder()

    def embedders(self, mode: str, meta_error: IndexUnavailable | None) -> Embedders:
        if meta_error is not None:
            raise meta_error
        if mode in ("keyword", "fuzzy") and not self.ready:
            self.load_sparse()  # no need to wait for the dense model
        else:
            self.load()
        assert self.sparse is not None  # both loaders set it
        return Embedders(self.dense, self.sparse)

    def choose_first(self, roots: Callable[[], list[Path]]) -> None:
        """Before a first index with "auto", the model that index of `roots` will
        pick, unless one was measured or loaded already: a run that has chosen may
        be loading or using its model, and its choice stands. `roots` is asked
        only then (the index runs' machinery is imported on first use)."""
        if self._measured or self.dense is not None or self.settings.model != AUTO:
            return
        if not self.store.read_meta().get("model"):
            self.choose_for(roots(), first=True)

    def choose_for(self, roots: list[Path], previous: str = "", *, first: bool = False) -> None:
        """Before a first build (or a rebuild) with "auto": measure the history to
        index. A rebuild whose sources hold no text to measure (gone: the archive
        holds them) keeps the `previous` index's model. `first`: asked by
        choose_first, which yields to a run that chose meanwhile."""
        if self.settings.model != AUTO or self.store.read_meta().get("model"):
            return
        texts = list(sample_texts(roots))
        if previous and not any(t.strip() for t in texts):
            choice = ModelChoice(previous, f"auto: the index was built with {previous}")
        else:
            choice = choose_model(AUTO, texts=texts)
        with self._lock:
            if first and (self._measured or self.dense is not None):
                return
            self._measured = True
            if self.dense is not None and self.dense.name != choice.model:
                from convo_tui.core.embed.dense import release_shared

                release_shared(self.dense.name)
                self.dense = None
            self._choice = choice

    def switch(self, manifest_dir: Path, progress: ProgressFn | None, cancel: CancelLike) -> SwitchResult | None:
        """Give the index the dense vectors of the model the settings ask for,
        when it was built with another: the sessions stay as published (no
        parsing, no BM25), the cached vectors of the new model are reused and
        phase 2 embeds the rest. None when there is nothing to switch."""
        meta = self.store.read_meta()
        current = meta.get("model")
        target = choose_model(self.settings.model, index_model=current)
        if not current or target.model == current:
            return None
        from convo_tui.core.embed.dense import shared_dense, vector_id
        from convo_tui.core.index.model_switch import switch_dense_model
        from convo_tui.core.index.vector_cache import VectorCache

        dense = shared_dense(target.model)
        notify = progress or (lambda _p: None)
        cache = VectorCache(manifest_dir, vector_id(dense), dense.dim)
        try:
            result = switch_dense_model(
                self.store,
                dense,
                cache,
                {**meta, "model": dense.name, "model_reason": target.reason, "dim": dense.dim},
                progress=lambda done, total: notify(IndexProgress("switch", done, total)),
                cancelled=lambda: is_cancelled(cancel),
            )
        finally:
            cache.close()
        if not result.cancelled:
            self.load_sparse()
            with self._lock:
                if self.dense is not None and self.dense.name != dense.name:
                    from convo_tui.core.embed.dense import release_shared

                    release_shared(self.dense.name)
                self.dense, self._choice = dense, target
        return result
