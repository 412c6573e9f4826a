"""Loading a model that reads Chinese reads what a first translated search needs
(core/search/translated_search.py `prepare`): the translation table and the
tokenizer's Chinese dictionary, so a process's first hybrid query does not wait
for them. A model that reads no Chinese makes no translated search: nothing read."""

from __future__ import annotations

import pytest
from convo_tui.core.embed.e5 import E5_MODEL
from convo_tui.core.embed.sparse import SparseEmbedder
from convo_tui.core.library.models import Models
from convo_tui.core.search import translate
from convo_tui.core.settings import DEFAULT_MODEL, Settings
from convo_tui.core.store.edge import EdgeStore


@pytest.mark.parametrize(("model", "reads_chinese"), [(E5_MODEL, True), (DEFAULT_MODEL, False)])
def test_the_model_load_reads_the_translation_data_only_for_a_model_that_reads_chinese(
    tmp_path, monkeypatch, model, reads_chinese
):
    calls: list[SparseEmbedder] = []
    real = SparseEmbedder.read_cjk_dictionary

    def reading(self: SparseEmbedder) -> None:
        calls.append(self)
        real(self)

    monkeypatch.setattr(SparseEmbedder, "read_cjk_dictionary", reading)
    translate.dictionary.cache_clear()
    store = EdgeStore(tmp_path / "index")
    try:
        models = Models(Settings(index_dir=tmp_path / "index", model=model), store)
        models.load()
        assert models.ready
        assert (translate.dictionary.cache_info().currsize == 1) is reads_chinese
        assert calls == ([models.sparse] if reads_chinese else [])
    finally:
        store.close()
        translate.dictionary.cache_clear()
