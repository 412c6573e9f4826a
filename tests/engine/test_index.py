"""Incremental indexing over a real Edge store with the bundled model."""

import os
import shutil

import pytest
from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.library import Library
from convo_tui.core.settings import Settings
from convo_tui.core.store.base import Cond, Filter

from tests.paths import FIXTURES

RELEVANCE = FIXTURES / "relevance"


@pytest.fixture
def corpus(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(RELEVANCE, src)
    (src / "bad.json").write_bytes(bytes(range(256)) * 4)
    return src


@pytest.fixture
def library(tmp_path):
    lib = Library.open(Settings(index_dir=tmp_path / "index"))
    yield lib
    lib.close()


def test_incremental_runs(corpus, library):
    first = library.index([corpus])
    assert (first.added, first.updated, first.unchanged, first.sessions) == (6, 0, 0, 6)
    assert first.skipped == [(str(corpus / "bad.json"), "binary file (contains NUL bytes)")]
    again = library.index([corpus])
    assert (again.added, again.updated, again.unchanged, again.removed) == (0, 0, 6, 0)
    assert again.points == first.points

    # Touched but identical: the hash says unchanged.
    lunch = corpus / "Users-alice-code-webapp" / "agent-transcripts" / "team-lunch.txt"
    os.utime(lunch, ns=(1, 1))
    assert library.index([corpus]).unchanged == 6

    # Changed: the session is replaced as a whole, with no leftover of the old version.
    lunch.write_text("user:\nBook the sushi place instead.\n\nassistant:\nDone, table for twelve at noon.\n", encoding="utf-8")
    changed = library.index([corpus])
    assert (changed.updated, changed.unchanged) == (1, 5)
    assert next(m.text for m in library.session("team-lunch").messages) == "Book the sushi place instead."
    turns = list(library.store.scroll(Filter(must=(Cond("session_id", value="team-lunch"), Cond("level", value="turn")))))
    assert len(turns) == 1 and turns[0].payload["user_text"] == "Book the sushi place instead."
    assert library.store.count(Filter(must=(Cond("visible", value=False),))) == 0


def test_vanished_file_stays_until_prune(corpus, library):
    library.index([corpus])
    (corpus / "Users-alice-code-webapp" / "agent-transcripts" / "slow-tests.txt").unlink()
    report = library.index([corpus])
    assert report.sessions == 6
    assert [h.session_id for h in library.search("pytest xdist", limit=1)] == ["slow-tests"]
    assert [s.orphaned for s in library.sessions() if s.id == "slow-tests"] == [True]
    assert library.prune() == 1
    assert "slow-tests" not in {s.id for s in library.sessions()}
    assert library.prune() == 0


def test_interrupted_run_leftovers_are_cleaned(corpus, library):
    library.index([corpus])
    # What a crash mid-write leaves: invisible points of an unpublished generation.
    # (Not its session point: a session whose session point is gone is re-indexed, core/index/health.py.)
    hidden = [
        p
        for p in library.store.scroll(Filter(must=(Cond("session_id", value="team-lunch"),)))
        if p.payload.get("level") != "session"
    ]
    library.store.set_payload({"visible": False, "generation": 1}, Filter(must=(Cond("key", value=hidden[1].payload["key"]),)))
    assert library.index([corpus]).unchanged == 6
    assert library.store.count(Filter(must=(Cond("visible", value=False),))) == 0


def test_old_schema_is_refused_with_the_way_out_and_another_model_waits_for_index(corpus, tmp_path):
    settings = Settings(index_dir=tmp_path / "index")
    with Library.open(settings) as lib:
        lib.index([corpus / "Users-alice-code-webapp"])
    # Another model in the settings: the index keeps answering with its own until
    # `index` switches its dense vectors (tests/engine/test_model_switch.py).
    other = Settings(index_dir=tmp_path / "index", model="BAAI/bge-small-en-v1.5")
    with Library.open(other) as lib:
        assert lib.model_info().model == "all-MiniLM-L6-v2-int8"
        assert "switches it" in lib.model_info().reason
    with Library.open(settings) as lib:
        lib.store.write_meta({**lib.store.read_meta(), "schema": 0})
    with pytest.raises(
        IndexUnavailable, match=r"older convo-tui \(schema 0, this version uses 1\); run `convo-tui index --rebuild`"
    ):
        Library.open(settings)
    with Library.open(settings, allow_mismatch=True) as lib:
        report = lib.index([corpus / "Users-alice-code-webapp"], rebuild=True)
        assert (report.added, report.sessions) == (3, 3)
    Library.open(settings).close()


def test_a_copy_made_after_its_session_was_indexed_never_replaces_it(tmp_path, library):
    """A cut copy of a session (the fixtures' truncated.jsonl of 7f3c2a10….jsonl)
    made after the session was indexed is the newest file, so it is read first;
    the session stays as its own file has it and the copy is reported."""
    src = tmp_path / "src"
    src.mkdir()
    own = src / "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b.jsonl"
    shutil.copy(FIXTURES / "claude_code" / own.name, own)
    library.index([src])
    whole = library.session(own.stem)
    assert whole.title == "Fix the flaky login test"

    copy = src / "truncated.jsonl"
    shutil.copy(FIXTURES / "claude_code" / copy.name, copy)
    report = library.index([src])
    assert (report.added, report.updated, report.sessions) == (0, 0, 1)
    assert report.skipped == [(str(copy), f"session {own.stem} is also in {own}, the file named after it; indexed from there")]
    kept = library.session(own.stem)
    assert (kept.title, len(kept.messages)) == (whole.title, len(whole.messages))
    # The copy is recorded as read: the next run reads neither file again.
    again = library.index([src])
    assert (again.added, again.updated, again.skipped) == (0, 0, [])


def test_same_session_in_two_files_is_indexed_once_never_mixed(tmp_path, library):
    """A backup copy holding a shorter version of a session must not leave the
    longer copy's extra turns beside the shorter copy's record."""
    folder = tmp_path / "src" / "proj"
    folder.mkdir(parents=True)
    full = "user:\nFirst question about caching\n\nassistant:\nUse Redis.\n\nuser:\nAnd the expiry?\n\nassistant:\nTen minutes.\n"
    (folder / "a.txt").write_text(full, encoding="utf-8")
    shorter = folder / "backup"
    shorter.mkdir()
    (shorter / "a.txt").write_text(full.split("\nuser:\nAnd")[0] + "\n", encoding="utf-8")
    os.utime(shorter / "a.txt", (1_700_000_000, 1_700_000_000))  # a backup: older than the live file (read newest first)

    report = library.index([tmp_path / "src"])
    assert (report.added, report.updated, report.sessions) == (1, 0, 1)
    assert report.skipped == [(str(shorter / "a.txt"), f"session a is also in {folder / 'a.txt'}; indexed from there")]
    session = library.session("a")
    turns = sorted(
        p.payload["turn_index"]
        for p in library.store.scroll(
            Filter(must=(Cond("session_id", value="a"), Cond("level", value="turn"), Cond("visible", value=True)))
        )
    )
    assert len(session.turns) == 2 and turns == [0, 1]
