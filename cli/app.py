"""`convo-tui` with no command: start the app (on the demo corpus with --demo)."""

from __future__ import annotations

import argparse
import asyncio
import atexit
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from convo_tui.core.settings import Settings

if TYPE_CHECKING:
    from convo_tui.tui.app import ConvoApp

CLOSING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def run_app(args: argparse.Namespace) -> int:
    settings = Settings.load(getattr(args, "config", None))
    if getattr(args, "index_dir", None):
        settings.index_dir = Path(args.index_dir).expanduser()
    from convo_tui.tui.app import create_app

    demo = bool(getattr(args, "demo", False))
    app = create_app(settings, demo=demo)
    if not demo:
        app.run()
        return int(app.return_code or 0)
    from convo_tui.tui.demo import remove_demo_folder, temporary_files_in

    # The demo lives in a fresh temporary folder: leave nothing behind, however the app ends.
    atexit.register(remove_demo_folder, app.settings)
    with temporary_files_in(app.settings):
        try:
            with quit_on_signals(app, lambda: remove_demo_folder(app.settings)):
                app.run()
        finally:
            remove_demo_folder(app.settings)
    return int(app.return_code or 0)


@contextmanager
def quit_on_signals(app: ConvoApp, cleanup: Callable[[], None]) -> Iterator[None]:
    """SIGTERM and SIGHUP (terminal closed) quit the app the normal way, so its
    workers stop and `cleanup` runs; a second signal cleans up and exits at once."""
    received: list[int] = []

    def handler(signum: int, _frame: object) -> None:
        received.append(signum)
        if len(received) > 1:
            cleanup()
            os._exit(128 + signum)
        try:
            asyncio.get_running_loop().call_soon_threadsafe(app.exit, None, 128 + signum)
        except RuntimeError:  # not running yet, or already stopped
            raise SystemExit(128 + signum) from None

    previous = {sig: signal.signal(sig, handler) for sig in CLOSING_SIGNALS}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
