"""What the app tests share: run an async test body, build the app over an open
engine, let its workers finish, search, focus a card."""

from __future__ import annotations

import asyncio
import dataclasses
import functools

from convo_tui.tui.app import create_app
from convo_tui.tui.widgets.card import ResultCard


def run_async(test):
    """Run an async test body in a fresh event loop (no async pytest plugin needed)."""

    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        return asyncio.run(test(*args, **kwargs))

    return wrapper


def make_app(corpus, **changes):
    settings, library = corpus
    changes.setdefault("debounce_ms", 0)  # searches start on the key: nothing to wait out
    return create_app(dataclasses.replace(settings, **changes), library=library, index_on_start=False)


async def workers_done(app) -> None:
    """Every worker of the app finished, those started meanwhile too. A worker an
    exclusive one replaced (a newer page read, a newer readiness look) is cancelled
    by design: `WorkerManager.wait_for_complete` raises WorkerCancelled for it, which
    made tests fail under load whenever a replacement landed during the wait. Any
    other failure still raises."""
    from textual.worker import WorkerCancelled, WorkerState

    while True:
        running = [w for w in app.workers if w.state in (WorkerState.PENDING, WorkerState.RUNNING)]
        if not running:
            return
        outcomes = await asyncio.gather(*(w.wait() for w in running), return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException) and not isinstance(outcome, WorkerCancelled):
                raise outcome


async def settle(pilot):
    await pilot.pause()
    await workers_done(pilot.app)
    await pilot.pause()


async def search(pilot, text: str) -> list[ResultCard]:
    pilot.app.search_screen.set_query(text)
    await settle(pilot)
    return pilot.app.search_screen.cards()


async def focus_card(pilot, query: str, title: str, turn: int | None = None) -> ResultCard:
    """Search `query` and focus the card of the session titled `title` (its turn `turn`, if given)."""
    cards = await search(pilot, query)
    card = next(c for c in cards if c.hit.session_title == title and turn in (None, c.hit.turn_index))
    card.focus()
    return card


async def until(pilot, condition, what: str, timeout: float = 60.0) -> None:
    """Let the app run until `condition()` holds (the index's worker threads move it);
    fail after `timeout` seconds naming `what`. Each step yields to the app for a
    frame; the time is only a bound, never a guess at how long something takes."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        await pilot.pause(0.05)


# -- snapshots: the same picture on every run -------------------------------------------

SNAPSHOT_SIZES = [(80, 24), (120, 40)]


def size_id(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


async def still(pilot) -> None:
    """Nothing moving on a clock: notifications gone, cursors not blinking, workers done."""
    await settle(pilot)
    pilot.app.clear_notifications()
    from textual.widgets import Input

    for box in pilot.app.screen.query(Input):
        box.cursor_blink = False
    await pilot.pause()


def scene(query: str = "", *keys: str):
    """A `run_before` for snap_compare: the query typed (if any), then each key, all settled."""

    async def run_before(pilot):
        await settle(pilot)
        if query:
            pilot.app.search_screen.set_query(query)
            await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        await still(pilot)

    return run_before
