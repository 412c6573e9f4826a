"""An index made before the faceted layouts (core/store/edge_facets.py) keeps
working as it is, `index` says what a rebuild brings, and the rebuild gives it
the newest layout: through the real CLI, on real transcripts."""

from __future__ import annotations

import shutil

import pytest
import qdrant_edge as qe
from convo_tui.cli.main import main
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings
from convo_tui.core.store.base import PAYLOAD_INDEXES
from convo_tui.core.store.edge_facets import FACETED_INDEXES, FOLDED_INDEXES, REBUILD_GAIN
from convo_tui.core.store.edge_schema import INDEX_SCHEMA, dense_config, main_config

from tests.paths import FIXTURES

CLAUDE = "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b"
HAIKU = "6650f1a2-0000-4000-8000-00000000000b"


def _older_index(index_dir, dim: int = 384, schema: dict[str, str] = PAYLOAD_INDEXES) -> None:
    """Empty shards as convo-tui made them before: an index a filter field, or the first faceted layout."""
    index_dir.mkdir(mode=0o700)
    for name, config in (("dense", dense_config(dim)), ("shard", main_config())):
        shard = qe.EdgeShard.create(str(index_dir / name), config)
        for field, kind in schema.items():
            shard.update(qe.UpdateOperation.create_field_index(field, INDEX_SCHEMA[kind]))
        shard.close()


def _schema(index_dir) -> set[str]:
    with Library.open(Settings(index_dir=index_dir), read_only=True) as lib:
        return set(lib.store._need().info().payload_schema)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("schema", "kept"),
    [
        (PAYLOAD_INDEXES, "keeps an index for each filter field"),
        (FACETED_INDEXES, "keeps indexes of its own for `key` and `session_id`"),
    ],
    ids=["an index a field", "faceted"],
)
def test_an_older_index_works_says_what_a_rebuild_brings_and_the_rebuild_gives_it(tmp_path, capsys, schema, kept):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(FIXTURES / "chatgpt" / "conversations.json", src)
    shutil.copy(FIXTURES / "claude_code" / f"{CLAUDE}.jsonl", src)
    index_dir = tmp_path / "index"
    _older_index(index_dir, schema=schema)

    assert main(["--index-dir", str(index_dir), "index", str(src)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("sessions: 3 added"), out
    gain = REBUILD_GAIN[schema is FACETED_INDEXES]
    assert f"{kept} (made by an older convo-tui): `convo-tui index --rebuild` opens it about {gain} faster" in err, err
    assert _schema(index_dir) == set(schema)
    searches = [
        ["search", "flaky login", "--mode", "keyword"],
        ["search", "flaky login source:claude-code", "--mode", "keyword"],
        ["search", "flaky login source:chatgpt", "--mode", "keyword"],
        ["search", "flaky login role:user"],
        ["sessions"],
        ["show", CLAUDE],
    ]
    before = []
    for argv in searches:
        assert main(["--index-dir", str(index_dir), *argv]) == 0
        before.append(capsys.readouterr().out)
    assert CLAUDE in before[1] and HAIKU not in before[1]
    assert HAIKU in before[2] and CLAUDE not in before[2]

    assert main(["--index-dir", str(index_dir), "index", "--rebuild", str(src)]) == 0
    _out, err = capsys.readouterr()
    assert "--rebuild` opens it" not in err, err
    assert _schema(index_dir) == set(FOLDED_INDEXES)
    after = []
    for argv in searches:
        assert main(["--index-dir", str(index_dir), *argv]) == 0
        after.append(capsys.readouterr().out)
    assert after == before


def test_the_rebuild_note_comes_once_a_process(tmp_path):
    """The app and `serve` index again at every change: the note is told the first time."""
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(FIXTURES / "claude_code" / f"{CLAUDE}.jsonl", src)
    index_dir = tmp_path / "index"
    _older_index(index_dir)
    with Library.open(Settings(index_dir=index_dir, discover_defaults=False)) as lib:
        first = lib.index([src])
        (src / f"{CLAUDE}.jsonl").touch()
        second = lib.index([src])
    assert any("--rebuild` opens it" in line for line in first.notes), first.notes
    assert not any("--rebuild" in line for line in second.notes), second.notes
