"""A damaged index is always named, never reported searchable (issue 24, item 3).

Each case damages one kind of file Qdrant Edge keeps (payload, BM25 and dense
storage, flags, payload indexes, segment metadata, the WAL; in the appendable
segment and in an optimized one) and runs what a user would: `sessions`,
`search`, `index` and `sources`. Each says, in one line and without a
traceback, that the index is damaged and that `convo-tui index --rebuild`
fixes it; `sources` never says it is fully searchable."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.library import Library
from convo_tui.core.settings import DEFAULT_MODEL, Settings

from tests.helpers.damage import damage, one, optimize_small
from tests.helpers.index_copy import copy_index
from tests.paths import FIXTURES

SOURCES = [FIXTURES / "claude_code", FIXTURES / "codex"]

# (index, file under shard/ or else dense/, damage); "optimized" holds an immutable segment too.
# Left out: damage Edge repairs by itself when it opens the shard (a cut `gaps.dat`
# or `deleted.dat`, a tracker its journal rewrites), and more of the same kind.
CASES = [
    ("plain", "segments/*/payload_storage/page_0.dat", "cut"),  # the issue's own: 1,000,000 bytes
    ("plain", "segments/*/payload_storage/tracker.dat", "junk"),
    ("plain", "segments/*/vector_storage-bm25/store/page_0.dat", "cut"),
    ("plain", "segments/*/vector_storage-dense/vectors/chunk_0.mmap", "cut"),
    ("plain", "segments/*/vector_storage-dense/vectors/chunk_0.mmap", "delete"),
    ("plain", "segments/*/vector_storage-dense/vectors/status.dat", "cut"),
    ("plain", "segments/*/vector_storage-bm25/deleted/status.dat", "cut"),
    ("plain", "segments/*/payload_index/*-facets-map/page_0.dat", "cut"),
    ("plain", "segments/*/segment.json", "junk"),
    ("plain", "wal/open-1", "junk"),
    ("optimized", "segments/*/vector_storage-dense/matrix.dat", "cut"),
    ("optimized", "segments/*/vector_storage-dense/quantized.data", "cut"),
    ("optimized", "segments/*/vector_index-bm25/inverted_index.dat", "cut"),
    ("optimized", "segments/*/id_tracker.mappings", "junk"),
    ("optimized", "segments/*/id_tracker.versions", "delete"),
    ("optimized", "segments/*/id_tracker.versions", "cut"),
    ("optimized", "segments/*/id_tracker.mappings", "delete"),  # Edge would make it anew, empty: every point lost
    ("optimized", "segments/*/vector_storage-dense/matrix.dat", "delete"),  # anew, zero-filled: nothing by meaning
]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Iterator[dict[str, Path]]:
    root = tmp_path_factory.mktemp("damaged")
    plain = root / "plain"
    with Library.open(Settings(index_dir=plain, model=DEFAULT_MODEL)) as library:
        library.index(SOURCES)
    optimized = copy_index(plain, root / "optimized")
    optimize_small(optimized, 384)
    assert list((optimized / "dense").glob("segments/*/vector_storage-dense/matrix.dat"))
    yield {"plain": plain, "optimized": optimized}
    shutil.rmtree(root, ignore_errors=True)


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _one_damage_line(err: str) -> None:
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    assert "damaged" in err and "convo-tui index --rebuild" in err, err


@pytest.mark.parametrize(("kind", "pattern", "how"), CASES, ids=[f"{k}:{p.split('/')[-1]}:{h}" for k, p, h in CASES])
def test_a_damaged_file_is_named_by_every_command(built, tmp_path, capsys, kind, pattern, how):
    index = copy_index(built[kind], tmp_path / "index")
    damage(one(index, pattern), how)
    where = ["--index-dir", str(index)]
    for command in (["sessions"], ["stats"], ["search", "--mode", "keyword", "login test"], ["index", *map(str, SOURCES)]):
        code, _out, err = _run(capsys, *command, *where)
        assert code == 1, (command, err)
        _one_damage_line(err)
    code, out, err = _run(capsys, "sources", *where)
    assert code == 0 and "Traceback" not in err
    assert "damaged" in out and "convo-tui index --rebuild" in out and "100%" not in out, out


def test_the_issues_case_names_the_page_and_a_rebuild_repairs_it(built, tmp_path, capsys):
    index = copy_index(built["plain"], tmp_path / "index")
    page = one(index, "segments/*/payload_storage/page_0.dat")
    damage(page, "cut")
    code, _out, err = _run(capsys, "sessions", "--index-dir", str(index))
    assert code == 1 and f"{page} is 1,000,000 bytes" in err
    code, _out, err = _run(capsys, "index", "--rebuild", "--index-dir", str(index), *map(str, SOURCES))
    assert code in (0, 3), err  # 3: the fixtures hold files it skips on purpose
    code, out, _err = _run(capsys, "search", "--mode", "keyword", "login test", "--index-dir", str(index))
    # The sources hold the session twice (truncated.jsonl is a cut copy of it); a
    # rebuild reads the newer first, which a checkout decides by microseconds.
    assert code == 0 and "Why does the login test fail sometimes?" in out


def test_a_healthy_index_passes_the_deep_check(built, capsys):
    for kind in ("plain", "optimized"):
        code, out, _err = _run(capsys, "sources", "--index-dir", str(built[kind]))
        assert code == 0 and "is damaged" not in out and "100%" in out, out
