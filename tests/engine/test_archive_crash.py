"""SIGKILL the indexer while the archive is writing a version; no entry is ever broken.

A corpus of transcripts large enough to be several chunks each exists in two
versions (v2 appends to some files, rewrites others, adds new ones). After v1
is archived, the corpus flips to v2 and an indexer subprocess
(tests/helpers/index_worker.py) is killed just before the archive compresses
a chunk picked by a seeded generator: inside a version's transaction, with
part of its chunks written. After each kill every archived file reads back
whole, and its newest version is exactly v1 or v2 of that file, never a mix.
A last run archives everything, and the archive alone brings every session
back once the sources are gone.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from convo_tui.core.archive.store import Archive
from convo_tui.core.index.manifest import file_hash
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings

from tests.engine.test_crash_safety import kill_when_paused, start_worker
from tests.paths import ROOT

SEED = 2811
KILLS = 2
WORDS = ["archive", "chunk", "zstd", "append", "rewrite", "version", "session", "kill", "transaction", "sqlite", "qdrant"]


def _transcript(rng: random.Random, turns: int) -> str:
    out = []
    for _ in range(turns):
        out += ["user:", " ".join(rng.choices(WORDS, k=rng.randint(5, 40))) + "?", "", "assistant:"]
        out += [" ".join(rng.choices(WORDS, k=rng.randint(20, 400))) + ".", ""]
    return "\n".join(out)


def versions() -> tuple[dict[str, str], dict[str, str]]:
    rng = random.Random(SEED)
    folder = "Users-alice-code-archive/agent-transcripts"
    v1 = {f"{folder}/s{i:02d}.txt": _transcript(rng, 60) for i in range(6)}  # ~100 KB: several chunks each
    v2 = dict(v1)
    for i, name in enumerate(sorted(v1)):
        if i % 2 == 0:
            v2[name] = v1[name] + "\n" + _transcript(rng, 30)  # grown
        else:
            v2[name] = _transcript(rng, 60)  # rewritten
    v2[f"{folder}/new.txt"] = _transcript(rng, 60)
    return v1, v2


def write(root: Path, version: dict[str, str]) -> dict[str, str]:
    """The folder holds `version`; returns each file's hash."""
    hashes = {}
    for name, text in version.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        hashes[str(path)] = file_hash(path)
    return hashes


@pytest.mark.slow
def test_a_kill_while_archiving_never_leaves_a_broken_entry(tmp_path: Path):
    source, index_dir = tmp_path / "src", tmp_path / "index"
    v1, v2 = versions()
    old = write(source, v1)
    proc = start_worker(index_dir, source, "keyword")
    assert proc.communicate(timeout=600)[0].startswith("done")
    new = write(source, v2)
    archive = Archive(index_dir / "archive")
    rng = random.Random(SEED)
    for pause_at in sorted(rng.sample(range(1, 12), KILLS)):
        proc = start_archive_worker(index_dir, source, pause_at)
        assert kill_when_paused(proc) == "paused", f"the run ended before chunk {pause_at}"
        assert archive.verify() == []
        for entry in archive.entries():
            assert entry.latest.hash in (old.get(entry.key), new[entry.key]), f"{entry.key}: neither its old nor its new version"
    proc = start_worker(index_dir, source, "keyword")
    assert proc.communicate(timeout=600)[0].startswith("done")
    assert archive.verify() == []
    assert {e.key: e.latest.hash for e in archive.entries()} == new
    settings = Settings(index_dir=index_dir, sources=[source], discover_defaults=False)
    with Library.open(settings) as library:
        ids = {s.id for s in library.sessions()}
    shutil.rmtree(source)
    with Library.open(settings, allow_mismatch=True) as library:
        report = library.index(rebuild=True, semantic=False)
        assert report.skipped == [] and {s.id for s in library.sessions()} == ids == {Path(n).stem for n in v2}


def start_archive_worker(index_dir: Path, source: Path, pause_at: int) -> subprocess.Popen:
    """The indexer in its own process, stopping before the archive's `pause_at`-th chunk."""
    env = {**os.environ, "CONVO_TUI_TEST_ARCHIVE_PAUSE_AT": str(pause_at)}
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "helpers" / "index_worker.py"),
            str(index_dir),
            "index",
            str(source),
            "8",
            "keyword",
        ],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "ready"
    return proc
