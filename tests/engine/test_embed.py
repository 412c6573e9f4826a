from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from convo_tui.core.embed.bundled import bundled_model_files
from convo_tui.core.embed.dense import EMBED_WINDOW, DenseEmbedder
from convo_tui.core.embed.minilm_onnx import MINILM_DISABLED_OPTIMIZERS
from convo_tui.core.embed.sparse import SparseEmbedder
from tokenizers import Tokenizer

TEXTS = [
    "How do I configure the Qdrant collection?",
    "What is the way to set up a vector database collection in Qdrant?",
    "I like eating pizza on Fridays.",
    "那次讨论 RAG 的对话在哪里?",
    "token " * 400,
]


@pytest.fixture(scope="module")
def dense():
    """The fp32 path (INT8 off), whose vectors are fastembed's bit for bit; the int8
    graph the default runs is checked against it in tests/engine/test_e5_onnx.py."""
    return DenseEmbedder(quantized=False)


def _reference(texts):
    """all-MiniLM-L6-v2 as sentence-transformers computes it: mean pooling, L2 norm."""
    onnx, tok = bundled_model_files()
    tokenizer = Tokenizer.from_file(str(tok))
    tokenizer.enable_truncation(EMBED_WINDOW)
    tokenizer.no_padding()
    session = ort.InferenceSession(str(onnx))
    out = []
    for text in texts:
        enc = tokenizer.encode(text)
        ids, mask, types = (np.array([x]) for x in (enc.ids, enc.attention_mask, enc.type_ids))
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0]
        vec = (hidden * mask[..., None]).sum(1)[0] / mask.sum()
        out.append(vec / np.linalg.norm(vec))
    return np.array(out)


def test_bundled_model_matches_reference_pooling(dense):
    assert (dense.name, dense.dim, dense.window) == ("all-MiniLM-L6-v2-int8", 384, EMBED_WINDOW)
    assert EMBED_WINDOW == 128  # what the model was trained on (core/embed/dense.py)
    got = np.array(dense.embed_documents(TEXTS))
    assert np.abs(got - _reference(TEXTS)).max() < 1e-5
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_paraphrase_closer_than_unrelated(dense):
    a, b, c = (np.array(v) for v in dense.embed_documents(TEXTS[:3]))
    assert a @ b > 0.6 and a @ c < 0.2
    assert np.allclose(dense.embed_query(TEXTS[0]), a, atol=1e-6)


def test_query_vector_is_the_document_vector_bit_for_bit(dense):
    """A query is embedded by the same session, tokenizer and pooling as the indexed documents."""
    for text in TEXTS:
        assert dense.embed_query(text) == dense.embed_documents([text])[0]


def test_direct_onnx_path_gives_fastembeds_vectors(dense):
    """The bundled model no longer goes through fastembed; its vectors are still fastembed's."""
    from convo_tui.core.embed.bundled import fastembed_bundled

    reference = fastembed_bundled()
    reference.model.tokenizer.enable_truncation(max_length=EMBED_WINDOW)  # the window we give the model
    want = np.array(list(reference.embed(TEXTS, batch_size=2)))
    got = np.array(dense.embed_documents(TEXTS))
    assert np.abs(got - want).max() < 1e-5
    assert np.abs(np.array(dense.embed_query(TEXTS[3])) - next(iter(reference.query_embed(TEXTS[3])))).max() < 1e-5


def test_searching_process_does_not_import_fastembed():
    """fastembed and its imports cost ~40 MB resident; a query needs none of it."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from convo_tui.core.embed.dense import DenseEmbedder\n"
        "DenseEmbedder().embed_query('rollback the migration')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('fastembed', 'huggingface_hub')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == "[]"


def test_onnx_session_keeps_no_memory_pattern(dense):
    """The memory pattern keeps a pre-planned block per input shape; every text has its own length."""
    assert dense.session.get_session_options().enable_mem_pattern is False


def test_bm25_splits_chinese_and_weights_documents():
    bm25 = SparseEmbedder()
    query = bm25.embed_query("数据库回滚")
    doc = bm25.embed_document("数据库迁移应该怎么回滚？")
    assert len(query.indices) >= 2 and set(query.indices) <= set(doc.indices)
    assert set(query.values) == {1.0}
    assert all(v > 1.0 for v in doc.values)


def test_onnx_threads_do_not_spin_after_inference(dense):
    """Spinning ORT threads steal the CPU from the search that follows a query embedding."""
    options = dense.session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.get_session_config_entry("session.inter_op.allow_spinning") == "0"


def test_onnx_session_runs_without_the_cpu_arena(dense):
    """The arena keeps a large batch's memory for the process' life; a searching process needs none of it."""
    assert dense.session.get_session_options().enable_cpu_mem_arena is False


def test_chunking_tokenizer_is_one_private_copy_without_padding_or_truncation(dense):
    tokenizer = dense.tokenizer
    assert tokenizer is dense.tokenizer
    assert tokenizer is not dense._model_tokenizer
    assert tokenizer.padding is None and tokenizer.truncation is None
    assert len(tokenizer.encode("token " * 400, add_special_tokens=False).ids) == 400


@pytest.mark.own_model_cache
def test_onnx_session_is_built_once_then_from_the_cached_optimised_graph(monkeypatch):
    """fastembed used to build a session that was thrown away for ours; now one build, and a
    second process loads the optimised graph the first one saved (same vectors)."""
    from convo_tui.core.embed import dense as embed

    built: list[str] = []
    real = ort.InferenceSession

    def counting(path, *args, **kwargs):
        built.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(ort, "InferenceSession", counting)
    onnx, _ = bundled_model_files()
    cached = embed._optimized_graph_path(onnx, embed.DEFAULT_MODEL, MINILM_DISABLED_OPTIMIZERS)
    cached.unlink(missing_ok=True)
    first = DenseEmbedder(quantized=False)
    assert len(built) == 1 and built[0].endswith("model.onnx")
    assert cached.is_file()
    second = DenseEmbedder(quantized=False)
    assert built[1:] == [str(cached)]
    vectors = [np.array(e.embed_documents(TEXTS)) for e in (first, second)]
    assert np.abs(vectors[0] - vectors[1]).max() < 1e-5
    assert np.abs(vectors[1] - _reference(TEXTS)).max() < 1e-5
    options = second.session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_minilm_graphs_keep_the_residual_add_and_layer_norm_apart():
    """onnxruntime's SkipLayerNormalization (the residual Add and LayerNorm fused) ran
    15% of a MiniLM text's time on the CPU: MiniLM's cached graphs (fp32 and int8) are
    saved without that fusion and still give the reference vectors."""
    import onnx as onnx_lib
    from convo_tui.core.embed import dense as embed
    from convo_tui.core.embed.minilm_onnx import optimized_graph_path

    fp32, int8 = DenseEmbedder(quantized=False), DenseEmbedder()
    onnx_file, _ = bundled_model_files()
    int8_source, int8_name = embed.minilm_graph(onnx_file, embed.DEFAULT_MODEL, True)
    graphs = [
        embed._optimized_graph_path(onnx_file, embed.DEFAULT_MODEL, MINILM_DISABLED_OPTIMIZERS),
        optimized_graph_path(int8_source, int8_name, MINILM_DISABLED_OPTIMIZERS),
    ]
    for graph in graphs:
        assert graph.is_file(), graph
        ops = {node.op_type for node in onnx_lib.load(str(graph), load_external_data=False).graph.node}
        assert "SkipLayerNormalization" not in ops and "LayerNormalization" in ops, (graph, ops)
    assert np.abs(np.array(fp32.embed_documents(TEXTS)) - _reference(TEXTS)).max() < 1e-5
    assert (np.array(int8.embed_documents(TEXTS)) * _reference(TEXTS)).sum(axis=1).min() > 0.95


@pytest.mark.own_model_cache
def test_cached_graph_keeps_its_weights_in_a_mapped_file_and_is_rebuilt_without_them():
    """The optimised graph's weights sit in a file of their own that onnxruntime maps (the word
    table then costs only the rows a query touches); a graph whose weights are gone is rebuilt."""
    from convo_tui.core.embed import dense as embed

    onnx, _ = bundled_model_files()
    cached = embed._optimized_graph_path(onnx, embed.DEFAULT_MODEL, MINILM_DISABLED_OPTIMIZERS)
    first = DenseEmbedder(quantized=False)  # builds the cache if no earlier test did
    loaded = DenseEmbedder(quantized=False)  # from the cache
    weights = sorted(cached.parent.glob(f"{cached.stem}.*.weights"))
    assert cached.is_file() and len(weights) == 1
    assert cached.stat().st_size < 1_000_000 < weights[0].stat().st_size  # the graph alone is small
    maps = Path("/proc/self/maps")
    mapped = [line for line in maps.read_text().splitlines() if str(weights[0]) in line] if maps.exists() else ["-"]
    assert mapped, "onnxruntime maps the weights file instead of reading it"
    del loaded
    weights[0].unlink()
    again = DenseEmbedder(quantized=False)
    assert len(list(cached.parent.glob(f"{cached.stem}.*.weights"))) == 1
    vectors = [np.array(e.embed_documents(TEXTS)) for e in (first, again)]
    assert np.abs(vectors[0] - vectors[1]).max() < 1e-5


def test_cached_vectors_of_the_cut_window_are_not_those_of_the_full_one(dense, tmp_path):
    """A text read to 128 word pieces is another vector than the same text read to 256:
    a vector cached before the cut (keyed by the model's name) is not reused."""
    from convo_tui.core.embed.dense import vector_id
    from convo_tui.core.index.vector_cache import VectorCache

    assert vector_id(dense) == f"{dense.name}@{EMBED_WINDOW}"
    long_text = " ".join(f"word{i}" for i in range(400))
    old = VectorCache(tmp_path, dense.name, dense.dim)
    old.put_many([(long_text, [0.5] * dense.dim)])
    old.close()
    cache = VectorCache(tmp_path, vector_id(dense), dense.dim)
    try:
        assert cache.get_many([long_text]) == {}
    finally:
        cache.close()


@pytest.mark.parametrize("quantized", [False, True], ids=["fp32", "int8"])
def test_documents_embedded_by_two_sessions_side_by_side_are_one_sessions_vectors(quantized):
    """Phase 2 runs one-thread sessions side by side (core/embed/batching.py run_all):
    the same vectors as one session, each text in its own slot."""
    texts = [f"{text} #{n}" for n in range(6) for text in TEXTS]
    one = DenseEmbedder(quantized=quantized, threads=1)
    two = DenseEmbedder(quantized=quantized, threads=2)
    alone, side_by_side = np.array(one.embed_documents(texts)), np.array(two.embed_documents(texts))
    assert len(two._direct.document_sessions()) == 2 and len(one._direct.document_sessions()) == 1
    assert np.abs(alone - side_by_side).max() < 1e-6
    assert np.allclose(side_by_side[1], two.embed_documents([texts[1]])[0], atol=1e-6)
