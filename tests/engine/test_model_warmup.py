"""Loading the model for a process that searches for a while (the app, a holder:
`load_model`) reads what a first translated search needs when the model reads
Chinese (core/search/translated_search.py `prepare`): the table's words' vectors
and the tokenizer's Chinese dictionary. A command that loads the model for one
search does not (its translated search reads the cached vectors itself), nor
does a process whose model reads no Chinese (it makes no translated search)."""

from __future__ import annotations

import pytest
from convo_tui.core.embed.e5 import E5_MODEL
from convo_tui.core.embed.sparse import SparseEmbedder
from convo_tui.core.library.models import Models
from convo_tui.core.search import translate
from convo_tui.core.settings import DEFAULT_MODEL, Settings
from convo_tui.core.store.edge import EdgeStore


@pytest.mark.parametrize(
    ("model", "prepare", "reads"), [(E5_MODEL, True, True), (E5_MODEL, False, False), (DEFAULT_MODEL, True, False)]
)
def test_the_model_load_reads_the_translation_data_when_it_will_be_wanted(tmp_path, monkeypatch, model, prepare, reads):
    dictionaries: list[SparseEmbedder] = []
    tables: list[str] = []
    read_dictionary, read_table = SparseEmbedder.read_cjk_dictionary, translate.translation_vectors

    def reading(self: SparseEmbedder) -> None:
        dictionaries.append(self)
        read_dictionary(self)

    def vectors(embed_query, tokenizer):  # type: ignore[no-untyped-def]
        tables.append(tokenizer)
        return read_table(embed_query, tokenizer)

    monkeypatch.setattr(SparseEmbedder, "read_cjk_dictionary", reading)
    monkeypatch.setattr(translate, "translation_vectors", vectors)
    store = EdgeStore(tmp_path / "index")
    try:
        models = Models(Settings(index_dir=tmp_path / "index", model=model), store)
        models.load(prepare_translation=prepare)
        assert models.ready
        assert dictionaries == ([models.sparse] if reads else [])
        assert tables == ([models.sparse.version] if reads else [])  # type: ignore[union-attr]
        if not reads and prepare is False:
            models.load(prepare_translation=True)  # the model loaded already: only what was not read
            assert dictionaries == [models.sparse]
    finally:
        store.close()
