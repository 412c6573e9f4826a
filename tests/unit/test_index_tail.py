"""An index run leaves no points in the main shard's appendable segment
(edge_schema.MAIN_OPTIMIZERS): every process that opens the index would
rebuild that segment's indexes in RAM. A real Edge store, Qdrant's BM25 and
the cheap test embedder; sessions in Claude Code's format from the scale
bench's generator."""

from __future__ import annotations

import functools
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import qdrant_edge as qe
from convo_tui.core.embed.sparse import SparseEmbedder
from convo_tui.core.index.manifest import Manifest
from convo_tui.core.index.publish import OPTIMIZE_MIN_POINTS, Indexer
from convo_tui.core.store import edge_schema
from convo_tui.core.store.edge import EdgeStore

from bench.cheap import CheapEmbedder
from bench.scale_corpus import _Sessions
from tests.helpers.index_copy import copy_index

START = datetime(2026, 3, 1, tzinfo=UTC)


@functools.cache
def _generator() -> _Sessions:
    """The bench's generator, its word and sentence pools drawn once (a second each)."""
    return _Sessions(random.Random(0))


def _history(root: Path, sessions: int) -> list[Path]:
    gen = _generator()
    gen.rng.seed(5)
    files = []
    for n in range(sessions):
        when = START + timedelta(hours=n)
        sid = f"{n:08d}-0000-4000-8000-000000000000"
        data, _ = gen.claude(sid, "billing", gen.exchanges(30, when, "billing", "db", False))
        path = root / ".claude" / "projects" / "-billing" / f"{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        files.append(path)
    return files


def tail_points(shard: Path) -> int:
    """Points Edge's appendable segments of `shard` hold: the size of their id maps (0 when empty)."""
    held = 0
    for segment in (shard / "segments").iterdir():
        if '"MutableRam"' in (segment / "segment.json").read_text(encoding="utf-8"):
            held += sum(f.stat().st_size for f in segment.glob("mutable_id_tracker.mappings*"))
    return held


def _index(tmp_path: Path) -> tuple[Path, int]:
    index = tmp_path / "index"
    store = EdgeStore(index)
    try:
        report = Indexer(store, Manifest(index), CheapEmbedder(), SparseEmbedder()).run(
            _history(tmp_path / "home", 26), semantic=False
        )
    finally:
        store.close()
    return index / "shard", report.points


def test_a_run_leaves_its_points_in_on_disk_segments(tmp_path):
    shard, points = _index(tmp_path)
    assert points >= OPTIMIZE_MIN_POINTS  # enough for the run to end with optimize()
    assert tail_points(shard) == 0
    config = json.loads((shard / "edge_config.json").read_text(encoding="utf-8"))
    assert config["optimizers"]["indexing_threshold"] == edge_schema.MAIN_OPTIMIZERS.indexing_threshold


OLD = qe.EdgeOptimizersConfig(default_segment_number=16, max_segment_size=32 * 1024, deleted_threshold=0.5)


@pytest.fixture(scope="module")
def old_index(tmp_path_factory) -> tuple[Path, int]:
    """An index made with Edge's default threshold, as before MAIN_OPTIMIZERS (built once)."""
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(edge_schema, "MAIN_OPTIMIZERS", OLD)
        return _index(tmp_path_factory.mktemp("old"))


def test_with_edges_default_threshold_the_run_left_a_tail(old_index):
    """What the check above sees when the change is undone: the measure can fail."""
    shard, _ = old_index
    assert tail_points(shard) > 0


def test_an_index_made_with_the_old_settings_takes_them_when_opened_to_write(old_index, tmp_path):
    shard = tmp_path / "index" / "shard"
    copy_index(old_index[0].parent, shard.parent)
    assert edge_schema.optimizers_behind(shard)
    EdgeStore(shard.parent, read_only=True).close()
    assert edge_schema.optimizers_behind(shard), "a reader never writes the index"
    store = EdgeStore(shard.parent)
    try:
        assert not edge_schema.optimizers_behind(shard)
        assert store.count() == old_index[1]
        store.optimize()
    finally:
        store.close()
    assert tail_points(shard) == 0


@pytest.mark.parametrize("text", ["", "{", "[]", '{"optimizers": 3}'])
def test_an_unreadable_config_is_left_to_the_load(tmp_path, text):
    (tmp_path / "edge_config.json").write_text(text, encoding="utf-8")
    assert not edge_schema.optimizers_behind(tmp_path)
