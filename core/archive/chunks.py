"""Cutting a transcript's bytes into content-defined chunks, and compressing them.

A chunk ends at a line end chosen by the line's own content (its CRC has its
low bits clear), at least MIN_CHUNK and at most MAX_CHUNK bytes from the
chunk's start. Cuts depend only on the bytes since the previous cut, so two
versions of a file share every chunk before the first changed line and
resynchronise soon after it: an edited or re-saved JSON file, or a session
copied into a new file (Claude Code's resume), stores only what differs.
Appends are cheaper still: the archive chunks only the appended tail
(core/archive/store.py).
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Iterator
from typing import BinaryIO

import zstandard

MIN_CHUNK = 32 * 1024
MAX_CHUNK = 512 * 1024
# A line end cuts when crc32(line) & CUT_MASK == 0: about one line in 32 past MIN_CHUNK.
CUT_MASK = 0x1F
READ_BLOCK = 1 << 20
# zstd level 3: ~300 MB/s on one core; higher levels saved a point or two of
# size on transcripts for several times the time (measured: BENCHMARKS.md, "Archive").
LEVEL = 3


def chunk_id(data: bytes | memoryview) -> str:
    """The content address of a chunk: blake2b-128 of its bytes, hex."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def next_cut(buf: bytes | bytearray, start: int, final: bool) -> int | None:
    """Where the chunk starting at `start` ends, or None when more bytes are needed to tell."""
    size = len(buf)
    if size - start <= MIN_CHUNK:
        return size if final and size > start else None
    limit = start + MAX_CHUNK
    stop = min(limit, size)
    line = buf.rfind(b"\n", start, start + MIN_CHUNK) + 1
    line = max(line, start)
    pos = start + MIN_CHUNK
    view = memoryview(buf)
    while True:
        end = buf.find(b"\n", pos, stop)
        if end < 0:
            break
        if zlib.crc32(view[line:end]) & CUT_MASK == 0:
            return end + 1
        line = pos = end + 1
    if size >= limit:
        last = buf.rfind(b"\n", start + MIN_CHUNK, limit)
        return last + 1 if last >= 0 else limit
    return size if final else None


class Chunker:
    """Chunks of a stream fed in any pieces; the same cuts as chunking it whole."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buf += data
        return self._take(final=False)

    def finish(self) -> list[bytes]:
        return self._take(final=True)

    def _take(self, final: bool) -> list[bytes]:
        out: list[bytes] = []
        start = 0
        while (end := next_cut(self._buf, start, final)) is not None:
            out.append(bytes(self._buf[start:end]))
            start = end
        del self._buf[:start]
        return out


def chunk_stream(handle: BinaryIO, limit: int | None = None) -> Iterator[bytes]:
    """The chunks of what `handle` yields from its position (at most `limit` bytes)."""
    chunker = Chunker()
    left = limit
    while left is None or left > 0:
        block = handle.read(READ_BLOCK if left is None else min(READ_BLOCK, left))
        if not block:
            break
        if left is not None:
            left -= len(block)
        yield from chunker.feed(block)
    yield from chunker.finish()


def compress(data: bytes) -> bytes:
    # One compressor per thread: zstandard's objects are not thread-safe.
    return zstandard.ZstdCompressor(level=LEVEL).compress(data)


def decompress(data: bytes, size: int) -> bytes:
    return zstandard.ZstdDecompressor().decompress(data, max_output_size=size)
