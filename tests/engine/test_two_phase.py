"""Two-phase indexing: keyword-searchable first, dense vectors after, by content, resumable.

Real Edge store, real bundled model. The embedder is wrapped only to COUNT the
texts it is given (the vectors are the model's own).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from convo_tui.cli.main import main
from convo_tui.core.embed.dense import shared_dense, vector_id
from convo_tui.core.embed.sparse import SparseEmbedder
from convo_tui.core.holder.access import readiness as index_readiness
from convo_tui.core.index import dense_phase
from convo_tui.core.index.dense_phase import DensePhase, point_text, token_batches
from convo_tui.core.index.manifest import Manifest
from convo_tui.core.index.points import session_points
from convo_tui.core.index.publish import Indexer, visible_filter
from convo_tui.core.index.vector_cache import VectorCache
from convo_tui.core.library import Library
from convo_tui.core.model import Message, Session, ToolCall
from convo_tui.core.search.pipeline import search
from convo_tui.core.search.request import Embedders
from convo_tui.core.settings import DEFAULT_MODEL, Settings
from convo_tui.core.store.base import Cond, Point, SparseVec
from convo_tui.core.store.edge import EdgeStore

from tests.helpers.resident import resident_kb

TOPICS = [
    "the login form loses its session cookie after a redirect",
    "pytest fixtures leak database connections between tests",
    "the docker image is too large because of build caches",
    "a race between the cache warmer and the migration job",
    "why the CSV export drops rows with unicode names",
    "rate limiting the public API without a shared store",
]


class CountingEmbedder:
    """The real dense model; remembers every text it was asked to embed."""

    def __init__(self) -> None:
        self.inner = shared_dense(DEFAULT_MODEL)
        self.name, self.dim = self.inner.name, self.inner.dim
        self.texts: list[str] = []
        self.fail_after: int | None = None
        self.on_embed = None

    @property
    def tokenizer(self) -> object | None:
        return self.inner.tokenizer

    def embed_documents(self, texts):
        if self.fail_after is not None and len(self.texts) + len(texts) > self.fail_after:
            raise KeyboardInterrupt("killed")  # what a kill mid-phase-2 leaves behind
        self.texts += list(texts)
        vectors = self.inner.embed_documents(texts)
        if self.on_embed is not None:
            self.on_embed()
        return vectors

    def embed_query(self, text):
        return self.inner.embed_query(text)


def write_cursor(folder: Path, name: str, turns: list[tuple[str, str]]) -> Path:
    path = folder / "Users-alice-code-shop" / "agent-transcripts" / f"{name}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"user:\n{q}\n\nassistant:\n{a}\n\n" for q, a in turns), encoding="utf-8")
    return path


def corpus(folder: Path) -> list[Path]:
    return [
        write_cursor(
            folder, f"s{i}", [(f"Question {j} about {topic}?", f"Answer {j}: {topic} is fixed by step {j}.") for j in range(3)]
        )
        for i, topic in enumerate(TOPICS)
    ]


def run(store, folder: Path, dense, *, semantic: bool = True, cancel=None):
    manifest = Manifest.load(store.path)
    cache = VectorCache(store.path, vector_id(dense), dense.dim)
    try:
        indexer = Indexer(store, manifest, dense, SparseEmbedder(), cache=cache)
        return indexer.run(sorted(folder.rglob("*.txt")), semantic=semantic, cancel=cancel)
    finally:
        cache.close()


@contextmanager
def one_long_session(tmp_path: Path, turns: list[tuple[str, str]]) -> Iterator[tuple[EdgeStore, CountingEmbedder, Any]]:
    """A store holding one long session after phase 1 only, the model that will embed
    it, and phase 1's report; the store is closed after the block."""
    store = EdgeStore(tmp_path / "index")
    try:
        write_cursor(tmp_path / "src", "long", turns)
        dense = CountingEmbedder()
        yield store, dense, run(store, tmp_path / "src", dense, semantic=False)
    finally:
        store.close()


def test_sessions_are_keyword_searchable_before_any_dense_vector(tmp_path):
    src = tmp_path / "src"
    corpus(src)
    (src / "Users-alice-code-shop" / "agent-transcripts" / "s0.txt").write_text(
        "user:\nWhere did the zanzibarite needle go?\n\nassistant:\nInto the haystack.\n", encoding="utf-8"
    )
    dense = CountingEmbedder()
    with Library.open(Settings(index_dir=tmp_path / "index")) as library:
        report = library.index([src], semantic=False)
        assert report.sessions == 6 and report.embedded == 0 and dense.texts == []
        status = library.semantic_status()
        assert status.total > 0 and status.ready == 0
        for mode in ("keyword", "hybrid", "fuzzy"):
            hits = library.search("zanzibarite", mode=mode, limit=3)
            assert hits and hits[0].session_id == "s0", mode
        assert library.search("zanzibarite needle", mode="semantic", limit=3) == []

        report = library.index([src])
        assert report.unchanged == 6 and report.vectors_added == status.total
        assert library.semantic_status().ready == status.total
        assert library.search("where is the needle hidden", mode="semantic", limit=1)[0].session_id == "s0"
    searchable, model = index_readiness(Settings(index_dir=tmp_path / "index")).split("\n")
    assert (
        searchable == f"index: 6 sessions searchable by keyword; {status.total}/{status.total} texts (100%) searchable by meaning"
    )
    assert model.startswith(f"model: {library.model_info().model} (")
    assert index_readiness(Settings(index_dir=tmp_path / "nothing")) is None


def test_phase_two_writes_nothing_to_the_main_shard_and_its_last_segment_is_built_before(tmp_path, monkeypatch):
    """The main shard is optimized once phase 1 ends, beside phase 1's memory rather
    than the model's; phase 2 then gives vectors without moving any main point
    (core/store/edge_ready.py): the main shard ends as phase 1 left it."""
    monkeypatch.setattr("convo_tui.core.index.publish.OPTIMIZE_MIN_POINTS", 1)
    corpus(tmp_path / "src")
    store = EdgeStore(tmp_path / "index")
    seen: list[tuple[str, tuple[int, int, int]]] = []

    def main_state() -> tuple[int, int, int]:
        info = store.live_shard().info()
        return info.points_count, info.indexed_vectors_count, info.segments_count

    def progress(p) -> None:
        if p.phase in ("optimize", "semantic") and (not seen or seen[-1][0] != p.phase):
            seen.append((p.phase, main_state()))

    try:
        manifest = Manifest.load(store.path)
        dense = CountingEmbedder()
        cache = VectorCache(store.path, vector_id(dense), dense.dim)
        try:
            report = Indexer(store, manifest, dense, SparseEmbedder(), cache=cache).run(
                sorted((tmp_path / "src").rglob("*.txt")), progress=progress
            )
        finally:
            cache.close()
        assert report.vectors_added > 0 and dense.texts
        assert [phase for phase, _ in seen] == ["optimize", "semantic", "optimize"]
        after_phase_one = seen[1][1]
        assert main_state() == after_phase_one
        assert report.semantic_ready == report.semantic_total > 0
    finally:
        store.close()


def test_a_run_whose_phases_each_wrote_too_little_to_build_builds_once_for_both(tmp_path, monkeypatch):
    corpus(tmp_path / "src")
    dense = CountingEmbedder()
    first = EdgeStore(tmp_path / "first")
    try:
        report = run(first, tmp_path / "src", dense)
    finally:
        first.close()
    assert report.vectors_added > 0
    # More than phase 1 wrote, no more than the two phases together.
    monkeypatch.setattr("convo_tui.core.index.publish.OPTIMIZE_MIN_POINTS", report.points + 1)
    phases: list[str] = []
    store = EdgeStore(tmp_path / "index")
    try:
        Indexer(store, Manifest.load(store.path), dense, SparseEmbedder()).run(
            sorted((tmp_path / "src").rglob("*.txt")), progress=lambda p: phases.append(p.phase)
        )
        assert [p for p in phases if p in ("semantic", "optimize")][-1] == "optimize"
        assert "optimize" not in phases[: phases.index("semantic")]
    finally:
        store.close()


def test_appending_embeds_only_the_new_texts(tmp_path):
    src, store = tmp_path / "src", EdgeStore(tmp_path / "index")
    try:
        paths = corpus(src)
        dense = CountingEmbedder()
        first = run(store, src, dense)
        assert first.added == 6 and first.semantic_ready == first.semantic_total > 0
        before = store.count(visible_filter())
        dense.texts.clear()

        # A no-op run embeds nothing.
        assert run(store, src, dense).unchanged == 6 and dense.texts == []

        # One more exchange in three sessions: only the new message texts and the new turns.
        for path in paths[:3]:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(
                    f"user:\nOne more thing about {path.stem}: the flaky retry?\n\nassistant:\nRetry twice for {path.stem}.\n\n"
                )
        again = run(store, src, dense)
        assert (again.updated, again.unchanged) == (3, 3)
        assert len(dense.texts) == 9, dense.texts  # per session: 1 turn + 2 messages
        assert all("flaky retry" in t or "Retry twice" in t for t in dense.texts)
        assert store.count(visible_filter()) == before + 9
        assert again.semantic_ready == again.semantic_total
    finally:
        store.close()


def test_a_killed_phase_two_resumes_without_embedding_again(tmp_path):
    src, store = tmp_path / "src", EdgeStore(tmp_path / "index")
    try:
        corpus(src)
        dense = CountingEmbedder()
        dense.fail_after = 40
        with pytest.raises(KeyboardInterrupt):
            run(store, src, dense)
        done = list(dense.texts)
        assert 0 < len(done) <= 40
        ready_before = store.count(visible_filter(Cond("dense_ready", value=True)))
        assert store.count(visible_filter(Cond("level", value="session"))) == 6  # phase 1 was complete
        store.close()

        store = EdgeStore(tmp_path / "index")
        dense.fail_after = None
        dense.texts.clear()
        report = run(store, src, dense)
        assert report.unchanged == 6 and report.semantic_ready == report.semantic_total
        assert not set(done) & set(dense.texts), "a text embedded before the kill was embedded again"
        every = {point_text(p.payload) for p in store.scroll(visible_filter(Cond("dense_ready", value=True)))}
        assert set(done) | set(dense.texts) == every and len(set(dense.texts)) == len(dense.texts)
        assert ready_before < report.semantic_total
    finally:
        store.close()


def test_cancel_stops_phase_two_between_batches_and_the_next_run_finishes(tmp_path):
    src, store = tmp_path / "src", EdgeStore(tmp_path / "index")
    try:
        corpus(src)
        dense = CountingEmbedder()
        cancel = threading.Event()
        phase = DensePhase(store, dense, None)
        first = run(store, src, dense, semantic=False)
        assert first.semantic_ready == 0

        dense.on_embed = cancel.set  # the app quits while the first model batch runs
        added, cancelled = phase.run(None, cancel)
        assert cancelled and 0 < added < first.semantic_total and len(dense.texts) == added
        dense.on_embed = None
        report = run(store, src, dense)
        assert report.semantic_ready == report.semantic_total and not report.cancelled
    finally:
        store.close()


def test_phase_two_reads_a_huge_session_a_slice_at_a_time(tmp_path):
    """One session of many texts (a 200 MB transcript has 20,000) is not read whole
    before the model starts: memory holds a slice of ROUND_TEXTS texts (issue 24.5)."""
    turns = [
        (f"Step {j}: what does {TOPICS[j % 6]} mean here?", f"Reply {j}: look at {TOPICS[(j + 1) % 6]}.") for j in range(200)
    ]
    with one_long_session(tmp_path, turns) as (store, dense, first):
        assert first.semantic_total > 2 * dense_phase.ROUND_TEXTS  # one session, several slices

        read = 0
        scroll = store.scroll

        def counted(*args, **kwargs):
            nonlocal read
            for point in scroll(*args, **kwargs):
                read += 1
                yield point

        store.scroll = counted  # type: ignore[method-assign]
        read_at_first_embed: list[int] = []
        cancel = threading.Event()

        def first_batch() -> None:
            read_at_first_embed.append(read)
            cancel.set()

        dense.on_embed = first_batch
        _added, cancelled = DensePhase(store, dense, None).run(None, cancel)
        assert cancelled
        # _pending_sessions reads every waiting point's id once; the texts come a slice at a time.
        assert read_at_first_embed[0] - first.semantic_total <= dense_phase.ROUND_TEXTS


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="page release is Linux-only")
def test_phase_two_lets_go_of_the_index_pages_each_round(tmp_path, monkeypatch):
    """The pages a round reads and writes are let go when it ends: they do not pile up
    over a long phase 2 (450 MB of a 100k-message index, counted in the process' RSS)."""
    monkeypatch.setattr(dense_phase, "ROUND_TEXTS", 32)  # several rounds from a few texts
    turns = [(f"Step {j}: what does {TOPICS[j % 6]} mean?", f"Reply {j}: see {TOPICS[(j + 1) % 6]}.") for j in range(40)]
    with one_long_session(tmp_path, turns) as (store, dense, first):
        rounds = -(-first.semantic_total // dense_phase.ROUND_TEXTS)
        assert rounds >= 3
        touched: list[int] = []  # index KB resident as the model is called
        dense.on_embed = lambda: touched.append(resident_kb(store.path))
        left: list[int] = []  # index KB resident right after each release
        release = store.release_pages

        def release_and_look() -> None:
            release()
            left.append(resident_kb(store.path))

        store.release_pages = release_and_look  # type: ignore[method-assign]
        added, cancelled = DensePhase(store, dense, None).run(None, None)
        assert not cancelled and added == first.semantic_total
        assert len(left) >= rounds, left  # after every round, not once at the end
        assert max(left) < max(touched)  # and what the rounds touched went


def test_the_list_of_waiting_points_lets_go_of_the_pages_it_reads(tmp_path, monkeypatch):
    """Phase 2 first lists every point waiting for a vector (newest first); that scroll
    reads each one's payload, 2 GB of pages at a million messages, released as it goes."""
    monkeypatch.setattr(dense_phase, "SCAN_RELEASE_POINTS", 8)
    turns = [(f"Step {j}: what does {TOPICS[j % 6]} mean?", f"Reply {j}: see {TOPICS[(j + 1) % 6]}.") for j in range(40)]
    with one_long_session(tmp_path, turns) as (store, dense, first):
        released: list[int] = []  # releases made before the model's first call
        embedded: list[bool] = []
        dense.on_embed = lambda: embedded.append(True)
        release = store.release_pages

        def counted() -> None:
            if not embedded:
                released.append(1)
            release()

        store.release_pages = counted  # type: ignore[method-assign]
        DensePhase(store, dense, None).run(None, None)
        # One per 8 points listed, and the one after the list and the count.
        assert len(released) >= first.semantic_total // 8 + 1, (len(released), first.semantic_total)


def test_thinking_tool_input_and_tool_output_are_found_by_keyword_and_labelled(tmp_path):
    session = Session(
        id="parts",
        title="parts",
        project="shop",
        source="claude-code",
        path=str(tmp_path / "parts.jsonl"),
        messages=[
            Message("u1", "user", "Please make the tests pass."),
            Message(
                "a1",
                "assistant",
                "Running the suite now.",
                thinking="Maybe the quokkafrobnicator is misconfigured.",
                tools=[
                    ToolCall(
                        "Bash",
                        {"command": "pytest tests/test_wombatizer.py -x"},
                        result="E   KeyError: 'platypusgrammar'\n" + "ok\n" * 3000,
                    )
                ],
            ),
            Message("a2", "assistant", "Fixed it."),
        ],
    )
    store, sparse = EdgeStore(tmp_path / "index"), SparseEmbedder()
    try:
        store.ensure(384)
        points = session_points(session, 1)
        store.upsert(
            [
                Point(
                    p.key,
                    None,
                    sparse.embed_document(p.keyword_text) if p.keyword_text else SparseVec([], []),
                    {**p.payload, "visible": True},
                )
                for p in points
            ]
        )
        for needle, part in (("quokkafrobnicator", "thinking"), ("wombatizer", "tool input"), ("platypusgrammar", "tool output")):
            [hit] = search(store, Embedders(None, sparse), needle, mode="keyword", limit=5)
            assert (hit.kind, hit.session_id, hit.turn_index, hit.part) == ("turn", "parts", 0, part), needle
            assert needle in hit.part_text and len(hit.part_text) < 400
            assert hit.user_text == "Please make the tests pass."
    finally:
        store.close()


def test_claude_code_thinking_and_tool_input_through_the_indexer(tmp_path, capsys):
    folder = tmp_path / "projects" / "-home-alice-shop"
    folder.mkdir(parents=True)
    sid = "0b5f1c7e-2a3d-4c5b-8e9f-a1b2c3d4e5f6"
    base = {"sessionId": sid, "cwd": "/home/alice/shop", "version": "2.0.1", "isSidechain": False, "userType": "external"}
    lines = [
        {
            **base,
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "2026-03-01T10:00:00Z",
            "message": {"role": "user", "content": "Why is the build slow?"},
        },
        {
            **base,
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": "2026-03-01T10:00:05Z",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "content": [
                    {"type": "thinking", "thinking": "Probably the snorkelwhistle step.", "signature": "x"},
                    {"type": "tool_use", "id": "toolu_1", "name": "Grep", "input": {"pattern": "gribblefast", "path": "src/"}},
                ],
            },
        },
    ]
    (folder / f"{sid}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with Library.open(Settings(index_dir=tmp_path / "index")) as library:
        library.index([tmp_path / "projects"], semantic=False)
        for needle, part in (("snorkelwhistle", "thinking"), ("gribblefast", "tool input")):
            hits = library.search(needle, mode="keyword", limit=3)
            assert [(h.session_id, h.part) for h in hits] == [(sid, part)], needle
            hits = library.search(needle, mode="hybrid", limit=3)
            assert hits and hits[0].part == part
    # The command line says where the words were found, around the match.
    for needle, label in (("snorkelwhistle", "thinking"), ("gribblefast", "tool input")):
        assert main(["--index-dir", str(tmp_path / "index"), "search", "--mode", "keyword", needle]) == 0
        out = capsys.readouterr().out
        assert [row for row in out.splitlines() if row.startswith(f"    {label}: ") and needle in row], out


def test_a_file_name_that_is_not_utf8_does_not_cost_the_others(tmp_path):
    src = tmp_path / "src"
    corpus(src)
    folder = src / "Users-alice-code-shop" / "agent-transcripts"
    latin1 = os.path.join(os.fsencode(folder), b"\xe9t\xe9-notes.txt")
    with open(latin1, "wb") as handle:
        handle.write(b"user:\nSummer plans for the beach?\n\nassistant:\nPack the sunscreen.\n")
    with Library.open(Settings(index_dir=tmp_path / "index")) as library:
        report = library.index([src], semantic=False)
        ids = {s.id for s in library.sessions()}
        assert {f"s{i}" for i in range(6)} <= ids
        assert report.added == 7 and report.skipped == []
        assert [h.session_id for h in library.search("sunscreen", mode="keyword")] == ["\\xe9t\\xe9-notes"]
        again = library.index([src], semantic=False)
        assert again.unchanged == 7


def test_token_batches_sort_by_length_and_respect_the_budget():
    texts = ["a" * n for n in (5, 4000, 30, 900, 12, 2000)] + ["a" * 5]
    batches = token_batches(texts, budget=600, max_batch=3)
    flat = [t for b in batches for t in b]
    assert flat == sorted(set(texts), key=len)
    assert all(len(b) <= 3 for b in batches)
    assert all(len(b) * min(256, 2 + len(b[-1]) // 4) <= 600 or len(b) == 1 for b in batches)


def _export(conversations: int) -> list[dict]:
    """A ChatGPT conversations.json with many small conversations."""
    out = []
    for i in range(conversations):
        t = 1_717_000_000.0 + i * 3600
        node = lambda mid, role, text, parent, children, at: {  # noqa: E731
            "id": mid,
            "message": {
                "id": mid,
                "author": {"role": role, "name": None, "metadata": {}},
                "create_time": at,
                "content": {"content_type": "text", "parts": [text]},
                "status": "finished_successfully",
                "metadata": {},
                "recipient": "all",
            },
            "parent": parent,
            "children": children,
        }
        mapping = {
            "root": {"id": "root", "message": None, "parent": None, "children": [f"u{i}"]},
            f"u{i}": node(f"u{i}", "user", f"Question {i}: how do I tune the {TOPICS[i % 6]}?", "root", [f"a{i}"], t),
            f"a{i}": node(f"a{i}", "assistant", f"Answer {i}: tune it step by step.", f"u{i}", [], t + 60),
        }
        out.append(
            {
                "title": f"Conversation {i}",
                "create_time": t,
                "update_time": t + 60,
                "mapping": mapping,
                "id": f"conv-{i:03d}",
                "conversation_id": f"conv-{i:03d}",
            }
        )
    return out


def test_a_large_export_stopped_midway_keeps_what_was_published(tmp_path, monkeypatch):
    """Ctrl-C (or the app quitting) in the middle of a one-file export with many
    conversations: the sessions published so far stay; the next run finishes."""
    import convo_tui.core.index.batches as batches

    monkeypatch.setattr(batches, "BATCH_TEXTS", 30)  # publish every few conversations
    src = tmp_path / "export"
    src.mkdir()
    (src / "conversations.json").write_text(json.dumps(_export(60)), encoding="utf-8")
    events = []
    with Library.open(Settings(index_dir=tmp_path / "index")) as library:

        def progress(p):
            events.append((p.phase, p.sessions))

        stop = lambda: any(phase == "index" and sessions >= 20 for phase, sessions in events)  # noqa: E731
        report = library.index([src], progress=progress, cancel=stop, semantic=False)
        kept = {s.id for s in library.sessions()}
        assert report.cancelled and 20 <= len(kept) < 60
        searchable = [sessions for phase, sessions in events if phase == "index"]
        assert searchable == sorted(searchable) and len(set(searchable)) > 2  # progress per batch of conversations
        assert library.search("Question 3", mode="keyword", limit=1)[0].session_id in kept

        report = library.index([src])
        assert len({s.id for s in library.sessions()}) == 60 and not report.cancelled
        assert report.semantic_ready == report.semantic_total
