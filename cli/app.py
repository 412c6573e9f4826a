"""`convo-tui` with no command: start the app (on the demo corpus with --demo)."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from convo_tui.core.settings import Settings


def run_app(args: argparse.Namespace) -> int:
    settings = Settings.load(getattr(args, "config", None))
    if getattr(args, "index_dir", None):
        settings.index_dir = Path(args.index_dir).expanduser()
    from convo_tui.tui.app import create_app

    demo = bool(getattr(args, "demo", False))
    app = create_app(settings, demo=demo)
    try:
        app.run()
    finally:
        if demo:
            # The demo index and its exports live in one fresh temporary folder: leave nothing behind.
            shutil.rmtree(app.settings.index_dir.parent, ignore_errors=True)
    return int(app.return_code or 0)
