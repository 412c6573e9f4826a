"""Phase 1 at scale: newest first, long sessions streamed in parts, bounded batches.

A real Edge store with the cheap test embedder (bench/cheap.py) and Qdrant's
BM25: what is published when, not what the model makes of it. Histories are
made by the scale bench's generator (bench/scale_corpus.py), in the real
formats.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from convo_tui.core.embed.sparse import SparseEmbedder
from convo_tui.core.index import batches, publish, reading
from convo_tui.core.index.manifest import Manifest
from convo_tui.core.index.points import LEVEL_RECORD
from convo_tui.core.index.publish import Indexer, visible_filter
from convo_tui.core.library.catalogue import Catalogue
from convo_tui.core.library.reading import Reader
from convo_tui.core.model import ASSISTANT, USER, pair_messages
from convo_tui.core.sources import parse_path, stream_path
from convo_tui.core.stats import count_sessions
from convo_tui.core.store.base import Cond
from convo_tui.core.store.edge import EdgeStore

from bench.cheap import CheapEmbedder
from tests.helpers.generated import write

START = datetime(2026, 3, 1, tzinfo=UTC)


class _Annotations:
    def all(self) -> dict:
        return {}

    def get(self, _sid: str) -> None:
        return None


@pytest.fixture
def indexer(tmp_path):
    store = EdgeStore(tmp_path / "index")
    yield Indexer(store, Manifest(tmp_path / "index"), CheapEmbedder(), SparseEmbedder())
    store.close()


def _turns(store, session_id: str) -> list[int]:
    flt = visible_filter(Cond("session_id", value=session_id), Cond("level", value="turn"))
    return sorted(p.payload["turn_index"] for p in store.scroll(flt, fields=["turn_index"]))


def test_files_are_read_newest_first_across_sources(tmp_path, indexer):
    root = tmp_path / "home"
    files = {
        "old claude": (root / ".claude/projects/-a/old.jsonl", "claude", START),
        "new cursor": (root / ".cursor/projects/a/agent-transcripts/new.txt", "cursor", START + timedelta(days=300)),
        "mid codex": (
            root / ".codex/sessions/2026/05/01/rollout-2026-05-01T10-00-00-mid.jsonl",
            "codex",
            START + timedelta(days=60),
        ),
        "newer claude": (root / ".claude/projects/-b/newer.jsonl", "claude", START + timedelta(days=200)),
    }
    for seed, (path, kind, when) in enumerate(files.values(), start=1):
        write(kind, path, 6, seed, when)
    read: list[str] = []

    def progress(p) -> None:
        if p.phase == "index" and p.path and (not read or read[-1] != p.path):
            read.append(p.path)

    indexer.run(sorted(p for p, _, _ in files.values()), progress=progress, semantic=False)
    by_path = {str(path): name for name, (path, _, _) in files.items()}
    assert [by_path[p] for p in read] == ["new cursor", "newer claude", "mid codex", "old claude"]


@pytest.mark.parametrize("kind", ["claude", "codex"])
def test_a_stream_cut_in_parts_holds_exactly_the_whole_session(tmp_path, kind):
    path = tmp_path / ("s.jsonl" if kind == "claude" else "rollout-2026-03-01T10-00-00-s.jsonl")
    write(kind, path, 120, 7, START)
    whole = parse_path(path)[0]
    parts = list(stream_path(path, 3000))
    assert len(parts) > 3 and parts[-1].last and not any(p.last for p in parts[:-1])
    messages = [m for part in parts for m in part.session.messages]
    assert [(m.id, m.role, m.text, m.thinking, [(t.name, t.result) for t in m.tools]) for m in messages] == [
        (m.id, m.role, m.text, m.thinking, [(t.name, t.result) for t in m.tools]) for m in whole.messages
    ]
    first = 0
    turns = []
    for part in parts:
        assert part.first_message == first and part.session.id == whole.id
        first += len(part.session.messages)
        if part is not parts[0]:  # cut where the user speaks after an answer: no turn spans two parts
            assert part.session.messages[0].role == USER
            previous = [m for m in parts[parts.index(part) - 1].session.messages if m.is_conversation]
            assert previous[-1].role == ASSISTANT
        turns += [(t.user_text, t.ai_text) for t in pair_messages(part.session.messages)]
    assert turns == [(t.user_text, t.ai_text) for t in whole.turns]
    assert parts[-1].session.title == whole.title


def test_a_new_long_session_is_searchable_part_by_part_as_it_is_read(tmp_path, indexer, monkeypatch):
    monkeypatch.setattr(publish, "PART_CHARS", 4000)
    monkeypatch.setattr(batches, "PUBLISH_SECONDS", 3600.0)
    monkeypatch.setattr(batches, "BATCH_TEXTS", 40)
    path = tmp_path / "src" / "long.jsonl"
    sid = write("claude", path, 160, 11, START, word="zanzibarquokka")
    store = indexer.store
    seen: list[list[int]] = []

    def progress(p) -> None:
        if p.phase == "index":
            seen.append(_turns(store, sid))

    indexer.run([path], progress=progress, semantic=False)
    whole = parse_path(path)[0]
    total = list(range(len(whole.turns)))
    partial = [turns for turns in seen if turns and turns != total]
    assert partial, "the session became searchable only once it was whole"
    for turns in seen:  # always a prefix of the session's turns, growing
        assert turns == total[: len(turns)]
    assert [len(t) for t in seen] == sorted(len(t) for t in seen)
    assert _turns(store, sid) == total
    # Read back: one session, every message, its record kept in parts.
    reader = Reader(store, _Annotations())
    session = reader.session(sid)
    assert [m.text for m in session.messages] == [m.text for m in whole.messages]
    catalogue = Catalogue(store, _Annotations())
    summary = catalogue.summaries()[0]
    assert (summary.message_count, summary.turn_count, len(catalogue.summaries())) == (len(whole.messages), len(whole.turns), 1)
    # Its tally, made part by part, counts what its messages count.
    assert catalogue.stats(lambda missing: pytest.fail(f"no tally for {missing}")) == count_sessions([session])
    records = store.count(visible_filter(Cond("session_id", value=sid), Cond("level", value=LEVEL_RECORD)))
    assert records > 3


def test_a_known_session_read_in_parts_stays_whole_until_its_last_part(tmp_path, indexer, monkeypatch):
    monkeypatch.setattr(publish, "PART_CHARS", 4000)
    monkeypatch.setattr(batches, "PUBLISH_SECONDS", 3600.0)
    monkeypatch.setattr(batches, "BATCH_TEXTS", 40)
    path = tmp_path / "src" / "grows.jsonl"
    sid = write("claude", path, 60, 12, START)
    indexer.run([path], semantic=False)
    before = _turns(indexer.store, sid)
    write("claude", path, 160, 12, START + timedelta(days=1))  # the same session, longer
    after = list(range(len(parse_path(path)[0].turns)))
    seen: list[list[int]] = []

    def progress(p) -> None:
        if p.phase == "index":
            seen.append(_turns(indexer.store, sid))

    report = indexer.run([path], progress=progress, semantic=False)
    assert report.updated == 1
    assert all(turns in (before, after) for turns in seen), "a known session showed half of its new version"
    assert _turns(indexer.store, sid) == after


def test_batches_and_parts_are_bounded(tmp_path, indexer, monkeypatch):
    """Nothing holds a whole long session: each part reaches the store on its own,
    and no store write takes more than UPSERT_POINTS points."""
    monkeypatch.setattr(publish, "PART_CHARS", 5000)
    path = tmp_path / "src" / "long.jsonl"
    write("claude", path, 200, 13, START)
    sizes: list[int] = []
    upserts: list[int] = []
    points_of = reading.content_points

    def counting(session, *args, **kwargs):
        sizes.append(sum(len(m.text) + len(m.thinking) + sum(len(t.result) for t in m.tools) for m in session.messages))
        return points_of(session, *args, **kwargs)

    monkeypatch.setattr(reading, "content_points", counting)
    upsert = indexer.store.upsert
    monkeypatch.setattr(indexer.store, "upsert", lambda points: (upserts.append(len(points)), upsert(points)))
    indexer.run([path], semantic=False)
    whole = sum(len(m.text) + len(m.thinking) + sum(len(t.result) for t in m.tools) for m in parse_path(path)[0].messages)
    assert len(sizes) > 5 and max(sizes) < whole / 4
    assert max(upserts) <= batches.UPSERT_POINTS


def test_the_first_batch_is_small_so_the_newest_session_is_published_first(tmp_path, indexer, monkeypatch):
    monkeypatch.setattr(batches, "PUBLISH_SECONDS", 3600.0)
    root = tmp_path / "src"
    newest = write("claude", root / "newest.jsonl", 8, 21, START + timedelta(days=30), word="lighthousequokka")
    for n in range(6):
        write("claude", root / f"older{n}.jsonl", 12, 30 + n, START + timedelta(days=n))
    published: list[int] = []

    def progress(p) -> None:
        if p.phase == "index" and p.sessions and not published:
            published.append(p.sessions)
            assert _turns(indexer.store, newest), "the newest session was not in the first batch"

    indexer.run(sorted(root.iterdir()), progress=progress, semantic=False)
    assert published and published[0] < 7
