"""The reader keeps its place when the window changes size: every line wraps anew
and the same scroll offset showed turns seven to twelve away (tmux, session 32).
And it mounts a window of turns, not all of them: a session of 1,262 turns took
77 s to open (BENCHMARKS.md, "Thirty-second session")."""

from __future__ import annotations

from convo_tui.core.model import Message, Session
from convo_tui.tui.screens.reader import ReaderScreen
from convo_tui.tui.widgets.session_view import TurnView

from tests.helpers.app import make_app, run_async, until

ANSWER = " ".join(f"Step {n}: check the worker's logs, then the queue's depth, then the retry count." for n in range(1, 9))


def long_session(turns: int = 30) -> Session:
    messages = []
    for n in range(turns):
        messages.append(Message(id=f"u{n}", role="user", text=f"Question {n}: why does the payment worker retry?"))
        messages.append(Message(id=f"a{n}", role="assistant", text=ANSWER))
    return Session(
        id="place-test", title="Payment retries", project="payments", source="claude-code", path="/p.jsonl", messages=messages
    )


def at_top(screen: ReaderScreen) -> tuple[int | None, int]:
    """The turn at the top of the reader's view, and how many of its rows are above it."""
    found = screen.query("#reader-body")
    if not found:
        return None, 0  # not composed yet
    body = found.first()
    view = next((v for v in body.query_children(TurnView) if v.virtual_region.bottom > body.scroll_y), None)
    return (view.index, round(body.scroll_y - view.virtual_region.y)) if view is not None else (None, 0)


@run_async
async def test_the_reader_keeps_its_turn_through_resizes(demo_index):
    app = make_app(demo_index)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.push_screen(ReaderScreen(long_session(), 22, ""))
        await until(pilot, lambda: isinstance(app.screen, ReaderScreen) and at_top(app.screen) == (22, 0), "turn 22 shown")
        for size in [(80, 24), (50, 15), (100, 30), (120, 40)]:
            await pilot.resize_terminal(*size)
            await until(pilot, lambda size=size: app.screen.size == size, "the resize")
            await until(pilot, lambda: at_top(app.screen)[0] == 22, f"turn 22 at the top at {size}")
        await pilot.press("j", "j", "j", "j")  # four rows into turn 22
        await until(pilot, lambda: at_top(app.screen) == (22, 4), "four rows down")
        await pilot.resize_terminal(60, 20)  # its lines wrap to about twice as many
        # Before the reflow it reads (22, 4): only the put-back place is 5-15 rows in.
        await until(pilot, lambda: at_top(app.screen)[0] == 22 and 4 < at_top(app.screen)[1] < 16, "the place kept")


def mounted(screen: ReaderScreen) -> list[int | None]:
    return [view.index for view in screen.query_one("#reader-body").query_children(TurnView)]


@run_async
async def test_a_long_session_opens_with_a_window_of_turns_that_grows_where_the_reader_goes(demo_index):
    from convo_tui.tui.screens.reader_window import WINDOW

    app = make_app(demo_index)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.push_screen(ReaderScreen(long_session(200), 150, ""))
        await until(pilot, lambda: isinstance(app.screen, ReaderScreen) and at_top(app.screen) == (150, 0), "turn 150 shown")
        reader = app.screen
        assert len(mounted(reader)) == WINDOW and 150 in mounted(reader)
        first = mounted(reader)[0]
        reader.query_one("#reader-body").scroll_to(y=0, animate=False)  # up to the first turn mounted
        await until(pilot, lambda: mounted(reader)[0] < first, "more turns above")
        await until(pilot, lambda: at_top(reader)[0] == first, "the same turn on top after they came")
        reader._scroll_to_turn(5)  # as n/N to a turn outside the window
        await until(pilot, lambda: at_top(reader) == (5, 0), "turn 5 reached")
        await pilot.press("G")
        await until(pilot, lambda: mounted(reader)[-1] == 199, "the last turn")
        assert mounted(reader) == sorted(mounted(reader))  # in order, each once


@run_async
async def test_the_first_frame_of_the_reader_shows_the_turn_it_was_opened_at(demo_index, monkeypatch):
    """The window mounts turns above the opened one, and the body was painted at
    its top for a few frames before the scroll to the turn (tmux, session 32):
    every frame painted shows the opened turn on top, or the body transparent."""
    app = make_app(demo_index)
    painted: list[tuple[int | None, int]] = []
    display = type(app)._display

    def record(self, screen, renderable):  # every frame the app paints
        body = screen.query("#reader-body") if isinstance(screen, ReaderScreen) and renderable is not None else None
        if body and body.first().styles.opacity > 0:  # transparent: nothing of it is seen
            painted.append(at_top(screen))
        return display(self, screen, renderable)

    monkeypatch.setattr(type(app), "_display", record)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.push_screen(ReaderScreen(long_session(60), 40, ""))
        await until(pilot, lambda: isinstance(app.screen, ReaderScreen) and at_top(app.screen) == (40, 0), "turn 40 shown")
        await pilot.pause()
    assert painted and all(top == (40, 0) for top in painted), painted[:5]
