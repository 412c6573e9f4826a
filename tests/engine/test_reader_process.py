"""Phase 1 read in a second process (core/index/reader_process.py): the index
it builds is the one this process builds, a reader that dies costs one file,
and the process never outlives its run."""

from __future__ import annotations

import os
import signal
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import qdrant_edge as qe
from convo_tui.core.embed.bundled import bundled_model_files
from convo_tui.core.embed.sparse import SparseEmbedder
from convo_tui.core.index import batches, publish, reader_process
from convo_tui.core.index.manifest import Manifest
from convo_tui.core.index.publish import Indexer
from convo_tui.core.index.reader_process import ProcessReader
from convo_tui.core.index.reading import FileEnd, FileFailed, PartRead, PartReader, ReadJob
from convo_tui.core.sources import detect_format
from convo_tui.core.store.base import SPARSE
from convo_tui.core.store.edge import EdgeStore
from convo_tui.core.store.edge_packing import unpack
from tokenizers import Tokenizer

from bench.cheap import CheapEmbedder
from tests.helpers.generated import write

START = datetime(2026, 3, 1, tzinfo=UTC)


def corpus(root: Path) -> list[Path]:
    """Three sources, one session long enough to be read in parts, one file that is not a transcript."""
    files = [
        (root / ".claude/projects/-a/long.jsonl", "claude", 160),
        (root / ".codex/sessions/2026/03/02/rollout-2026-03-02T10-00-00-c.jsonl", "codex", 30),
        (root / ".cursor/projects/a/agent-transcripts/cur.txt", "cursor", 20),
        *((root / f".claude/projects/-b/s{i}.jsonl", "claude", 12) for i in range(6)),
    ]
    for seed, (path, kind, messages) in enumerate(files, start=1):
        write(kind, path, messages, seed, START + timedelta(days=seed))
    broken = root / ".claude/projects/-b/broken.jsonl"
    broken.write_text('{"type": "user", "message": {"role": "user", "content": "half a line', encoding="utf-8")
    return [path for path, _, _ in files] + [broken]


def chunking_tokenizer() -> Tokenizer:
    """The bundled model's tokenizer as chunking uses it (it must cross to the reader process)."""
    tokenizer = Tokenizer.from_file(str(bundled_model_files()[1]))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def build(index: Path, files: list[Path], monkeypatch, *, in_process: bool, cancel=None):
    monkeypatch.setattr(reader_process, "PROCESS_BYTES", 1 << 60 if in_process else 0)
    store = EdgeStore(index)
    try:
        indexer = Indexer(store, Manifest(index), CheapEmbedder(tokenizer=chunking_tokenizer(), window=128), SparseEmbedder())
        report = indexer.run(files, semantic=False, cancel=cancel)
        return report, stored_points(store)
    finally:
        store.close()


def stored_points(store: EdgeStore) -> dict[str, tuple[dict, list[tuple[int, float]]]]:
    """Every point by key: its payload but the run's generation, and its BM25 vector."""
    page, _ = store.live_shard().scroll(qe.ScrollRequest(limit=100_000, with_payload=True, with_vector=[SPARSE]))
    out = {}
    for record in page:
        payload = unpack(dict(record.payload))
        payload.pop("generation")
        sparse = record.vector.get(SPARSE) if isinstance(record.vector, dict) else None
        out[payload["key"]] = (payload, sorted(zip(sparse.indices, sparse.values, strict=True)) if sparse else [])
    return out


@pytest.fixture
def long_sessions_in_parts(monkeypatch):
    monkeypatch.setattr(publish, "PART_CHARS", 6000)
    monkeypatch.setattr(batches, "BATCH_TEXTS", 200)


@pytest.fixture
def started(monkeypatch) -> list[ProcessReader]:
    """The reader processes the runs start (a run that fell back to reading here starts none)."""
    readers: list[ProcessReader] = []
    real = reader_process.ProcessReader

    def recorded(reader: PartReader) -> ProcessReader:
        readers.append(real(reader))
        return readers[-1]

    monkeypatch.setattr(reader_process, "ProcessReader", recorded)
    return readers


def test_the_index_read_in_a_second_process_is_the_index_read_in_this_one(tmp_path, monkeypatch, long_sessions_in_parts, started):
    files = corpus(tmp_path / "home")
    here, here_points = build(tmp_path / "here", files, monkeypatch, in_process=True)
    assert not started
    there, there_points = build(tmp_path / "there", files, monkeypatch, in_process=False)
    assert len(started) == 1 and started[0].pid is not None and not started[0].running  # it read every file, and ended
    assert here.sessions == there.sessions == 9
    assert sorted(here.skipped) == sorted(there.skipped) and len(here.skipped) == 1  # the broken file, the same line
    assert there_points == here_points and len(here_points) > 300
    parts = [key for key in here_points if ":record-" in key]
    assert len(parts) > 3  # the long session was read in parts, in both


def test_a_cancelled_run_stops_its_reader_process(tmp_path, monkeypatch, long_sessions_in_parts, started):
    batches_written = []
    write_batch = batches.Batches.write

    def counting(self, *args):
        batches_written.append(1)
        return write_batch(self, *args)

    monkeypatch.setattr(batches.Batches, "write", counting)
    report, _ = build(
        tmp_path / "index", corpus(tmp_path / "home"), monkeypatch, in_process=False, cancel=lambda: bool(batches_written)
    )
    assert report.cancelled and len(started) == 1
    assert not started[0].running  # ended with the run, not left behind


def test_a_reader_killed_mid_run_costs_at_most_a_file_and_the_next_run_reads_it(
    tmp_path, monkeypatch, long_sessions_in_parts, started
):
    files = corpus(tmp_path / "home")
    monkeypatch.setattr(reader_process, "PROCESS_BYTES", 0)
    killed: list[int] = []

    def kill_the_reader(p) -> None:
        if p.phase == "index" and p.sessions and not killed and started and started[0].pid is not None:
            killed.append(started[0].pid)
            os.kill(started[0].pid, signal.SIGKILL)

    store = EdgeStore(tmp_path / "index")
    try:
        indexer = Indexer(
            store, Manifest(tmp_path / "index"), CheapEmbedder(tokenizer=chunking_tokenizer(), window=128), SparseEmbedder()
        )
        first = indexer.run(files, semantic=False, progress=kill_the_reader)
        assert killed and not first.cancelled
        lost = [reason for _path, reason in first.skipped if "reader process stopped" in reason]
        assert len(lost) <= 1 and all("killed by signal 9" in reason and "read again next run" in reason for reason in lost)
        second = indexer.run(files, semantic=False)
        assert second.sessions == 9 and second.added + second.updated == len(lost)  # what the kill cost, and only that
    finally:
        store.close()


def jobs(files: list[Path]) -> list[ReadJob]:
    return [ReadJob(str(f), str(f), detect_format(f).name) for f in files]


def test_a_reader_process_that_dies_costs_the_file_it_was_reading_and_the_rest_is_read_here(tmp_path):
    root = tmp_path / "home"
    long = root / "long.jsonl"
    write("claude", long, 400, 3, START)
    short = root / "short.jsonl"
    write("claude", short, 10, 4, START)
    reader = PartReader(None, SparseEmbedder(), generation=1, part_chars=4000)
    source = ProcessReader(reader)
    try:
        first, second = jobs([long, short])
        source.submit(first)
        source.submit(second)
        items = source.items(first)
        assert isinstance(next(items), PartRead)
        assert source.pid is not None
        os.kill(source.pid, signal.SIGKILL)
        # The pipe holds a few parts at most of a file read in more than a hundred: the rest never comes.
        rest = list(items)
        assert isinstance(rest[-1], FileFailed) and not any(isinstance(i, FileEnd) for i in rest)
        assert (
            rest[-1].reason
            == "the reader process stopped (killed by signal 9) while reading this file; it is read again next run"
        )
        with pytest.raises(publish.ReadFailed, match="killed by signal 9"):
            rest[-1].raise_for(str(long))
        assert source.pid is None
        after = list(source.items(second))
        assert after == list(reader.read(second))  # read here, the same parts
        assert isinstance(after[-1], FileEnd) and isinstance(after[0], PartRead) and after[0].first_message == 0
    finally:
        source.close()
