"""A screen's mount handler that does nothing once the screen is gone.

A screen pushed just before the app quits (ctrl+q right after F3, or after
ctrl+o while the reader loads) is taken off the DOM with the rest, and Textual
still delivers its Mount afterwards, to a screen with no widgets: a handler that
looks one up raised NoMatches and the app ended with a traceback and exit code 1
(seen in `tests/e2e/test_app.py`, 1 run in about 20).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from textual.screen import Screen

S = TypeVar("S", bound=Screen[Any])


def when_shown(handler: Callable[[S], Any]) -> Callable[[S], Any]:
    """Run `handler` only while its screen is still attached to the app."""
    if inspect.iscoroutinefunction(handler):

        @wraps(handler)
        async def run_async(screen: S) -> None:
            if screen.is_attached:
                await handler(screen)

        return run_async

    @wraps(handler)
    def run(screen: S) -> None:
        if screen.is_attached:
            handler(screen)

    return run


__all__ = ["when_shown"]
