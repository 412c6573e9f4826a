"""`convo-tui serve`: hold the index in the foreground and keep it fresh.

The model and the index stay loaded, so every other convo-tui command (and
`convo-tui mcp`) is answered at once; the sources are watched and what
changes is indexed within seconds. Ctrl+C (or SIGTERM) stops it cleanly.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, TextIO

from convo_tui.cli.common import add_store_options, settings_from_args
from convo_tui.core.errors import ConvoError

if TYPE_CHECKING:
    from convo_tui.core.index.publish import IndexReport


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="keep the index and model loaded for other commands, and index new transcripts as they are written",
        description=(
            "Hold the index in the foreground: other convo-tui commands, the app and `convo-tui mcp` are answered by "
            "this process, and transcripts written under the sources are indexed within seconds. Ctrl+C stops it."
        ),
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="folders or files to watch instead of the default sources")
    parser.add_argument("--no-watch", action="store_true", help="only serve: do not index or watch the sources")
    add_store_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from convo_tui.core.holder import client, protocol
    from convo_tui.core.holder.access import open_local
    from convo_tui.core.holder.watch import watch_and_index, watched_roots

    settings = settings_from_args(args)
    paths = [Path(p).expanduser() for p in args.paths]
    for path in paths:
        if not path.exists():
            raise ConvoError(f"{path}: no such file or folder")
    if not settings.qdrant_url:
        with contextlib.suppress(client.NoHolder):
            hello = client.call(protocol.socket_path(settings.index_dir), "hello")
            raise ConvoError(f"index {settings.index_dir} is already served by pid {hello.get('pid')}")
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, _interrupt)
    err = sys.stderr
    try:
        with open_local(settings, must_serve=True) as library:
            err.write(f"convo-tui: serving {settings.index_dir} (pid {_pid()}); Ctrl+C stops\n")
            err.write("convo-tui: loading the embedding model\n")
            library.load_model()
            if args.no_watch:
                err.write("convo-tui: ready\n")
                threading.Event().wait()
            roots = watched_roots(paths or library.default_paths())
            report = library.index(roots)
            err.write(f"convo-tui: {_summary(report)}\n")
            if not roots:
                err.write("convo-tui: no source folder to watch; serving only\n")
                err.write("convo-tui: ready\n")
                threading.Event().wait()

            def watching() -> None:
                err.write(f"convo-tui: watching {', '.join(str(r) for r in roots)}\n")
                err.write("convo-tui: ready\n")
                err.flush()

            watch_and_index(library, roots, stop, on_report=lambda r: _report(r, err), on_watching=watching)
    except KeyboardInterrupt:
        stop.set()
    finally:
        signal.signal(signal.SIGTERM, previous)
    err.write("convo-tui: stopped serving\n")
    return 0


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _pid() -> int:
    import os

    return os.getpid()


def _summary(report: IndexReport) -> str:
    return (
        f"indexed: {report.added} added, {report.updated} updated, {report.unchanged} unchanged; "
        f"{report.sessions} sessions, {report.points} points"
    )


def _report(report: IndexReport, err: TextIO) -> None:
    if report.added or report.updated or report.skipped:
        err.write(f"convo-tui: {_summary(report)}\n")
        for path, reason in report.skipped:
            err.write(f"convo-tui: skipped {path}: {reason}\n")
        err.flush()
