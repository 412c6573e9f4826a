"""The deep check of a large index runs in a child process (core/store/deep_check.py):
it names what the check in this process names, and a child that cannot answer
never changes the answer."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.library import Library
from convo_tui.core.settings import DEFAULT_MODEL, Settings
from convo_tui.core.store import deep_check, meta_file
from convo_tui.core.store.files import check_files

from tests.helpers.damage import damage, one
from tests.helpers.index_copy import copy_index
from tests.paths import FIXTURES

SOURCES = [FIXTURES / "claude_code", FIXTURES / "codex"]
DAMAGES = {
    "healthy": None,
    "a tracker pointing anywhere": ("segments/*/payload_storage/tracker.dat", "junk"),
    "a payload page cut short": ("segments/*/payload_storage/page_0.dat", "cut"),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Iterator[Path]:
    index = tmp_path_factory.mktemp("deep") / "index"
    with Library.open(Settings(index_dir=index, model=DEFAULT_MODEL)) as library:
        library.index(SOURCES)
    yield index


@pytest.fixture
def children(monkeypatch) -> list[subprocess.Popen]:  # type: ignore[type-arg]
    """The child processes deep_check starts (it still starts them)."""
    started: list[subprocess.Popen] = []  # type: ignore[type-arg]

    class Recorded(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            started.append(self)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", Recorded)
    return started


def _damaged(built: Path, tmp_path: Path, case: str) -> Path:
    index = copy_index(built, tmp_path / "index")
    if DAMAGES[case] is not None:
        pattern, how = DAMAGES[case]
        damage(one(index, pattern), how)
    return index


@pytest.mark.parametrize("case", list(DAMAGES))
def test_the_child_names_what_this_process_names(built, tmp_path, monkeypatch, children, case):
    index = _damaged(built, tmp_path, case)
    meta = meta_file.read(index)
    here = check_files(index, meta, deep=True)
    assert bool(here) == (case != "healthy")
    monkeypatch.setattr(deep_check, "APART_SEGMENTS", 0)
    assert deep_check.deep_check(index, meta) == here
    assert len(children) == 1 and children[0].args[-1] == str(index)


@pytest.mark.parametrize("python", ["/bin/false", "/no/such/python"])
def test_a_child_that_cannot_answer_is_replaced_by_the_check_here(built, tmp_path, monkeypatch, children, python):
    index = _damaged(built, tmp_path, "a tracker pointing anywhere")
    meta = meta_file.read(index)
    here = check_files(index, meta, deep=True)
    monkeypatch.setattr(deep_check, "APART_SEGMENTS", 0)
    monkeypatch.setattr(sys, "executable", python)
    assert here and deep_check.deep_check(index, meta) == here
    assert len(children) == 1


def test_a_small_index_is_checked_in_this_process(built, children):
    assert deep_check.deep_check(built, meta_file.read(built)) == []
    assert children == []


@pytest.mark.parametrize("command", ["sessions", "stats"])
def test_sessions_and_stats_read_their_rows_while_the_check_runs(built, tmp_path, monkeypatch, children, command):
    """The check's child is started before the rows are read (at a million
    messages it is 0.8-1.4 s of `sessions`, which read its rows for 3 s after)."""
    monkeypatch.setattr(deep_check, "APART_SEGMENTS", 0)
    index = copy_index(built, tmp_path / "index")
    with Library.open(Settings(index_dir=index, model=DEFAULT_MODEL), read_only=True) as library:
        collected_before: list[bool] = []  # whether the child's answer was waited for before the rows were read
        real = getattr(library.catalogue, "summaries" if command == "sessions" else "stats")

        def read(*args, **kwargs):  # type: ignore[no-untyped-def]
            collected_before.append(len(children) == 1 and children[0].returncode is not None)
            return real(*args, **kwargs)

        monkeypatch.setattr(library.catalogue, real.__name__, read)
        assert getattr(library, command)()
        assert collected_before == [False] and len(children) == 1
        assert children[0].returncode == 0  # and after them
        getattr(library, command)()  # once per open
        assert len(children) == 1


def test_a_damaged_index_is_named_even_when_reading_its_rows_breaks(built, tmp_path, monkeypatch, children):
    monkeypatch.setattr(deep_check, "APART_SEGMENTS", 0)
    index = _damaged(built, tmp_path, "a tracker pointing anywhere")  # found by the deep check alone
    with Library.open(Settings(index_dir=index, model=DEFAULT_MODEL), read_only=True) as library:

        def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
            raise RuntimeError("what a damaged page does to a reader")

        monkeypatch.setattr(library.catalogue, "summaries", broken)
        with pytest.raises(IndexUnavailable, match="tracker"):
            library.sessions()
