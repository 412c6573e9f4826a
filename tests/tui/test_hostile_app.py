"""The app over hostile input (issue 24): random queries typed in the search box
never kill it, and ctrl+r on a session whose id or folder came from a hostile
transcript runs nothing and copies only what is safe."""

from __future__ import annotations

import asyncio
import os
import shlex
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from convo_tui.core.library import Library
from convo_tui.core.settings import DEFAULT_MODEL, Settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers.app import make_app, search, settle
from tests.helpers.hostile_corpus import TOKEN, write_hostile_corpus
from tests.unit.test_hostile_values import QUERIES

SIZE = (110, 34)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Iterator[tuple[Settings, Library, Path]]:
    root = tmp_path_factory.mktemp("hostile-app")
    corpus = write_hostile_corpus(root / "corpus")
    settings = Settings(index_dir=root / "index", sources=[corpus], discover_defaults=False, model=DEFAULT_MODEL)
    library = Library.open(settings)
    library.index([corpus])
    yield settings, library, root
    library.close()
    assert not any(root.rglob("pwned*")) and not (Path.cwd() / "pwned").exists()


@pytest.fixture
def fake_tools(tmp_path, monkeypatch) -> Path:
    """`claude`, `codex`, `gemini` on PATH that leave a mark if anything runs them."""
    marks = tmp_path / "ran"
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in ("claude", "codex", "gemini", "opencode", "aider"):
        script = folder / tool
        script.write_text(f'#!/bin/sh\necho "$@" >> {shlex.quote(str(marks))}\n', encoding="utf-8")
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    return marks


def _notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(QUERIES, min_size=12, max_size=12))
def test_no_query_typed_in_the_app_kills_it(hostile, queries):
    settings_, library, _root = hostile

    async def body() -> None:
        app = make_app((settings_, library))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            for query in [*queries, "stripe after:99999y", "x before:0001-01-01", "[/x]", "a:b:c [@click=app.quit]q[/]"]:
                await search(pilot, query)
                assert app.is_running and app._exception is None, query
            await pilot.press("f2")  # every mode sees the same queries
            await search(pilot, "stripe after:99999y [/x]")
            assert app.is_running and app._exception is None

    asyncio.run(body())


RESUMES = [
    ("deploy with", "No resume command for claude-code"),  # id `--dangerously-skip-permissions`
    ("a file named like an option", "No resume command for claude-code"),  # id `-rf`
    ("a file named like shell", "No resume command for claude-code"),  # id `; rm -rf ~`
    ("a folder with a newline", "is not an absolute path: copying the command instead"),  # a good id
]


def test_resume_on_hostile_sessions_runs_nothing(hostile, fake_tools):
    settings_, library, root = hostile

    async def body() -> None:
        app = make_app((settings_, library), search_mode="keyword")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            for query, said in RESUMES:
                cards = await search(pilot, f'"{query}"')
                assert cards, query
                cards[0].focus()
                assert TOKEN not in app.export_screenshot()  # the title's token is masked on screen
                await pilot.press("ctrl+r")
                await settle(pilot)
                assert app.is_running and app._exception is None
                assert any(said in note for note in _notes(app)[-2:]), (query, _notes(app))
                if said.startswith("No resume"):
                    assert library.session(cards[0].hit.session_id).resume is None

    asyncio.run(body())
    assert not fake_tools.exists()  # nothing ran
    copied = root / "copies" / "resume.sh"  # the good id's command, without the folder it cannot trust
    assert shlex.split(copied.read_text(encoding="utf-8")) == ["claude", "--resume", "0f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f"]
