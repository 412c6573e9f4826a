"""Quitting: the indexer stops before the index (and its lock) is closed; the demo leaves nothing behind."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from convo_tui.core.settings import Settings
from convo_tui.tui.app import create_app

from tests.helpers.app import run_async
from tests.helpers.demo_corpus import copy_demo, utc_clock


@run_async
async def test_quitting_while_indexing_stops_the_indexer_before_the_index_closes(tmp_path):
    from convo_tui.core.library import Library

    with utc_clock():
        corpus = copy_demo(tmp_path)
        settings = Settings(index_dir=tmp_path / "index", sources=[corpus], discover_defaults=False)
        app = create_app(settings)
        closed_while_busy: list[bool] = []
        async with app.run_test(size=(80, 24)) as pilot:
            while not app.indexing:
                await pilot.pause(0.01)
            library = app.library
            original = library.close

            def close() -> None:
                closed_while_busy.append(app.background.busy)
                original()

            library.close = close
            app.exit()
        assert closed_while_busy == [False], "the index was closed while a worker thread still used it"
        assert app.cancel_indexing.is_set()
        assert not app.background.busy  # every index and startup thread has returned
        Library.open(settings).close()  # the lock was released


def demo_env(tmp_path: Path) -> dict[str, str]:
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = dict(os.environ, TMPDIR=str(temp), TERM="xterm-256color", COLUMNS="80", LINES="24")
    env.pop("TEXTUAL_ANIMATIONS", None)
    return env


def start_demo(env: dict[str, str]) -> tuple[subprocess.Popen, int]:
    main, child = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "convo_tui.cli.main", "--demo"],
        stdin=child,
        stdout=child,
        stderr=child,
        env=env,
        start_new_session=True,
        close_fds=True,
    )
    os.close(child)
    threading.Thread(target=drain, args=(main,), daemon=True).start()  # the app must never block on a full terminal
    return process, main


def drain(fd: int) -> None:
    try:
        while os.read(fd, 65536):
            pass
    except OSError:
        pass


def wait_for(condition, what: str, limit: float = 120.0) -> None:
    """Poll for a state of another process (not a timing assertion: the limit only stops a hung test)."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"never saw: {what}")
        time.sleep(0.05)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_demo_closed_by_a_signal_removes_its_temporary_folder(tmp_path, signum):
    env = demo_env(tmp_path)
    temp = Path(env["TMPDIR"])
    process, main = start_demo(env)
    try:
        # The index folder exists once the app opened it: the signal lands while it starts or indexes.
        wait_for(lambda: any((d / "index").is_dir() and any((d / "index").iterdir()) for d in temp.iterdir()), "the demo index")
        made = [d.name for d in temp.iterdir()]
        assert len(made) == 1 and made[0].startswith("convo-tui-demo-")
        (temp / made[0] / "exports").mkdir(exist_ok=True)  # where an exported context would be
        process.send_signal(signum)
        process.wait(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(main)
    assert list(temp.iterdir()) == []


@run_async
async def test_a_workers_report_that_arrives_after_the_quit_is_dropped(demo_copy):
    """A worker may post its report (readiness, progress, a failure) just before
    the user quits, and the app handle it once its screens are gone: it is
    dropped, never a StopIteration looking for the search screen."""
    from convo_tui.tui.messages import BackgroundFailed, IndexingFinished, IndexingProgress, ModelLoaded, ReadinessRead
    from convo_tui.tui.screens.search import SearchScreen

    settings, library = demo_copy
    app = create_app(settings, library=library, index_on_start=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        readiness = library.readiness()
        await pilot.press("ctrl+q")
    assert app.quitting
    assert not any(isinstance(screen, SearchScreen) for screen in app.screen_stack)
    app.on_readiness_read(ReadinessRead(readiness, True))
    app.on_indexing_progress(IndexingProgress("index", 1, 2, None, 1))
    app.on_indexing_finished(IndexingFinished(None))
    app.on_background_failed(BackgroundFailed("index", "the disk went away"))
    app.on_model_loaded(ModelLoaded())
    assert not app.indexing


def _screens(library) -> dict[str, object]:
    from convo_tui.tui.dialogs import ConfirmScreen
    from convo_tui.tui.screens.reader import ReaderScreen
    from convo_tui.tui.screens.search import SearchScreen
    from convo_tui.tui.screens.sessions import SessionsScreen
    from convo_tui.tui.screens.stats import StatsScreen

    session = library.session(library.sessions()[0].id)
    return {
        "reader": lambda: ReaderScreen(session, 0, "qdrant"),
        "sessions": SessionsScreen,
        "stats": StatsScreen,
        "search": SearchScreen,
        "confirm": lambda: ConfirmScreen("Delete it?"),
    }


@run_async
async def test_quitting_just_as_a_screen_opens_ends_cleanly(demo_index):
    """ctrl+q right after ctrl+o or F3: Textual delivers the new screen's Mount after
    taking its widgets away, and its handler's lookup ended the app with a traceback
    (exit code 1; tests/e2e/test_app.py failed 1 run in about 20)."""
    from tests.helpers.app import make_app

    for name, screen in _screens(demo_index[1]).items():
        app = make_app(demo_index)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            app.push_screen(screen())  # type: ignore[operator]
            app.exit()
        assert app.return_code == 0, name
