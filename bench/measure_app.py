"""The app as a person meets it: opening the index, first paint, keystroke to results.

Driven headless through Textual's Pilot (`run_test`), the same harness the app's
own tests use. Keystroke-to-results runs with the debounce set to 1 ms (0 is
not a valid Textual timer), so the
figure is what the user waits after the debounce: from the key event to the
first screen refresh that shows the new cards. The key is posted directly
rather than with `pilot.press`, whose idle detection (20 ms windows until the
whole process is quiet) would add its own waits to the figure; the app is let
settle between keys, untimed, as between a person's keystrokes.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

from convo_tui.core.settings import INDEX_DIR_ENV, Settings

from bench.stats import Stopwatch


def private_state() -> None:
    """The app's remembered view and query history (core/history.py, beside the
    default index folder) in a folder of this process's own: the user's view, a
    sort by date left on, made the app search 50 deep and the figures those of
    another view (thirtieth session)."""
    global _private
    if _private is None:
        _private = Path(tempfile.mkdtemp(prefix="convo-bench-state-"))
        os.environ[INDEX_DIR_ENV] = str(_private / "index")


_private: Path | None = None


def settings_for(index_dir: Path, **overrides) -> Settings:
    return replace(Settings(index_dir=index_dir, discover_defaults=False), **overrides)


def open_library(index_dir: Path) -> tuple[object, float, float]:
    """(library, seconds to open the index, seconds to load the model)."""
    from convo_tui.core.library import Library

    with Stopwatch() as opening:
        library = Library.open(settings_for(index_dir))
    with Stopwatch() as loading:
        library.load_model()
    return library, opening.seconds, loading.seconds


async def _first_paint(index_dir: Path, started: float) -> tuple[float, float]:
    from convo_tui.tui.app import create_app
    from convo_tui.tui.screens.search import SearchScreen

    private_state()
    app = create_app(settings_for(index_dir), index_on_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        while not isinstance(app.screen, SearchScreen):
            await pilot.pause(0.001)
        painted = time.perf_counter() - started
        while not app.model_ready:
            await pilot.pause(0.01)
        ready = time.perf_counter() - started
    return painted, ready


def first_paint(index_dir: Path) -> dict[str, float]:
    """In a fresh process (cold imports, as a user starts the app): seconds from
    process start to the first screen, and until semantic search is ready."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.measure_app", str(index_dir)], capture_output=True, text=True, timeout=300
    )
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else str(done.returncode)
        raise RuntimeError(f"first-paint probe failed: {tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _first_paint_main(index_dir: Path) -> None:
    started = time.perf_counter()
    painted, ready = asyncio.run(_first_paint(index_dir, started))
    print(json.dumps({"first_paint": painted, "semantic_ready": ready}))


def _key_event(char: str):
    """The Key event a terminal sends for one typed character (what Pilot builds)."""
    from textual import events
    from textual.keys import _character_to_key

    if char == " ":
        return events.Key("space", " ")
    return events.Key(char if char.isalnum() else _character_to_key(char), char)


class Keystrokes(NamedTuple):
    """Seconds from a key to: the first new cards shown (a hybrid query's keyword pass),
    the query's last cards shown (its hybrid pass), the hybrid search call's return."""

    shown: list[float]
    settled: list[float]
    searched: list[float]


async def _keystrokes(library, index_dir: Path, queries: Sequence[str], max_keys: int) -> Keystrokes:
    from convo_tui.tui.app import create_app

    private_state()
    app = create_app(settings_for(index_dir, debounce_ms=1), library=library, index_on_start=False)
    samples: list[float] = []
    settled: list[float] = []
    searched: list[float] = []  # key -> the search call returned (before the cards are built)
    finished: list[float] = []
    search = library.search

    def timed_search(*args, **kwargs):
        result = search(*args, **kwargs)
        finished.append(time.perf_counter())
        return result

    library.search = timed_search
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.search_screen
        for query in queries:
            # Clear the box: start each query afresh (its value set, as keys that clear
            # it are bindings of their own on the search screen: ctrl+k moves the cursor).
            box = screen.query_one("#query")
            box.value = ""
            box.focus()
            await pilot.pause(0.05)
            for char in query:
                if len(samples) >= max_keys:
                    library.search = search
                    return Keystrokes(samples, settled, searched)
                before = screen.hits
                typed = screen.query_text + char
                started = time.perf_counter()
                app.post_message(_key_event(char))
                if len(typed.strip()) < 3 or typed.strip() == screen.query_text.strip():
                    await pilot.pause()
                    # One or two letters: too short to judge, results may not change; a
                    # space after a word: the same query, nothing is searched again.
                    continue
                deadline = started + 5.0
                while (screen.hits is before or screen.query_text != typed) and time.perf_counter() < deadline:
                    await asyncio.sleep(0.0005)
                await screen.wait_for_refresh()  # the new cards laid out and painted
                samples.append(time.perf_counter() - started)
                while not screen.settled and time.perf_counter() < deadline:
                    await asyncio.sleep(0.0005)
                await screen.wait_for_refresh()
                settled.append(time.perf_counter() - started)
                done = [t for t in finished if t >= started]
                if done:
                    searched.append(done[-1] - started)
                await pilot.pause()  # untimed: the app settles, as between a person's keys
    library.search = search
    return Keystrokes(samples, settled, searched)


def keystroke_latencies(library, index_dir: Path, queries: Sequence[str], max_keys: int = 60) -> Keystrokes:
    """Seconds from a key press to the first new result cards shown, to the query's
    last ones, and to the last search call's return (the rest is the app building
    and laying out the cards)."""
    return asyncio.run(_keystrokes(library, index_dir, [q for q in queries if q.isascii()], max_keys))


if __name__ == "__main__":
    _first_paint_main(Path(sys.argv[1]))
