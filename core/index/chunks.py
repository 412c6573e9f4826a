"""Cutting text for the dense model: message chunks of CHUNK_TOKENS word
pieces, and the start of a turn's text its model's window reads (a message
chunk inside it needs no vector of its own)."""

from __future__ import annotations

import re
from typing import Any, Protocol

_SPACE = re.compile(r"\s")
# Word pieces per chunk (e5 reads 512, MiniLM the first 128 of each: core/embed/dense.py EMBED_WINDOW).
CHUNK_TOKENS = 200
CHUNK_OVERLAP = 32
# Share of the model's window trusted to cover a turn's text (the chunking
# tokenizer may count slightly fewer pieces than the model's own).
WINDOW_MARGIN = 0.9


class TokenizerLike(Protocol):
    def encode(self, text: str, add_special_tokens: bool = ...) -> Any: ...


def covered_prefix(text: str, tokenizer: TokenizerLike | None, window: int | None) -> str:
    """The start of `text` a model with this window reads (all of it when it fits)."""
    if not window or not text:
        return text
    budget = max(1, int(window * WINDOW_MARGIN))
    if len(text) <= budget:  # a word piece never spans fewer than one character
        return text
    if tokenizer is None:
        words = [m.end() for m in re.finditer(r"\S+", text)]
        keep = int(budget / 1.3)
        return text if len(words) <= keep else text[: words[keep - 1]]
    offsets = [span for span in tokenizer.encode(text[: budget * 12], add_special_tokens=False).offsets if span[1] > span[0]]
    if len(offsets) <= budget and len(text) <= budget * 12:
        return text
    return text[: offsets[min(budget, len(offsets)) - 1][1]]


def chunk_text(
    text: str, tokenizer: TokenizerLike | None, max_tokens: int | None = None, overlap: int | None = None
) -> list[str]:
    """Split text into pieces of at most `max_tokens` word pieces, overlapping a little."""
    text = text.strip()
    return [text[a:b].strip() for a, b in chunk_spans(text, tokenizer, max_tokens, overlap)]


def chunk_spans(
    text: str,
    tokenizer: TokenizerLike | None,
    max_tokens: int | None = None,
    overlap: int | None = None,
    max_chunks: int | None = None,
) -> list[tuple[int, int]]:
    """(start, end) of each chunk of an already stripped text, at most `max_chunks`.

    A word piece never spans fewer than one character, so text no longer than
    `max_tokens` characters needs no tokenizer at all (the common case). With
    `max_chunks`, only a prefix long enough for them is tokenized, so a huge
    message costs no more than its first chunks.
    """
    max_tokens = CHUNK_TOKENS if max_tokens is None else max_tokens  # read at call time: the bench varies it
    overlap = CHUNK_OVERLAP if overlap is None else overlap
    if not text:
        return []
    if len(text) <= max_tokens:
        return [(0, len(text))]
    if tokenizer is None:
        return _chunk_words(text, max_tokens, overlap, max_chunks)
    head = text if max_chunks is None else text[: max_chunks * max_tokens * 12]
    offsets = [span for span in tokenizer.encode(head, add_special_tokens=False).offsets if span[1] > span[0]]
    if len(offsets) <= max_tokens and len(head) == len(text):
        return [(0, len(text))]
    spans: list[tuple[int, int]] = []
    step = max(1, max_tokens - overlap)
    start = 0
    while start < len(offsets) and (max_chunks is None or len(spans) < max_chunks):
        end = min(start + max_tokens, len(offsets))
        if text[offsets[start][0] : offsets[end - 1][1]].strip():
            spans.append((offsets[start][0], offsets[end - 1][1]))
        if end == len(offsets):
            break
        start += step
    return spans


def _chunk_words(text: str, max_tokens: int, overlap: int, max_chunks: int | None) -> list[tuple[int, int]]:
    """Fallback without a tokenizer: about 1.3 word pieces per word."""
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    size = max(1, int(max_tokens / 1.3))
    step = max(1, size - int(overlap / 1.3))
    spans: list[tuple[int, int]] = []
    for i in range(0, len(words), step):
        if max_chunks is not None and len(spans) >= max_chunks:
            break
        piece = words[i : i + size]
        spans.append((piece[0][0], piece[-1][1]))
        if i + size >= len(words):
            break
    return spans


def word_end(text: str, cut: int) -> int:
    """Move a cut made between word pieces to the end of that word (a few characters at most)."""
    space = _SPACE.search(text, cut, cut + 100)
    return space.start() if space else cut
