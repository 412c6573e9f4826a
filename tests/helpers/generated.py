"""Generated transcripts in the bench's shapes (bench/scale_corpus.py), written where a test wants them."""

from __future__ import annotations

import functools
import os
import random
from datetime import datetime
from pathlib import Path

from bench.scale_corpus import _Sessions


@functools.cache
def _generator() -> _Sessions:
    """The bench's generator, its word and sentence pools drawn once (a second each)."""
    return _Sessions(random.Random(0))


def write(kind: str, path: Path, messages: int, seed: int, when: datetime, word: str = "") -> str:
    """A Claude Code, Codex or Cursor transcript of about `messages` messages; returns its session id.
    The same `seed` writes the same transcript."""
    gen = _generator()
    gen.rng.seed(seed)
    exchanges = gen.exchanges(messages, when, "billing", "db", False, one_reply=kind == "codex")
    if word:
        exchanges[0].question += f" {word}"
    sid = f"{seed:08d}-0000-4000-8000-000000000000"
    data, _ = {"claude": gen.claude, "codex": gen.codex, "cursor": gen.cursor}[kind](sid, "billing", exchanges)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.utime(path, (when.timestamp(), when.timestamp()))
    return sid if kind != "cursor" else path.stem
