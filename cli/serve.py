"""`convo-tui serve`: hold the index in the foreground and keep it fresh.

The model and the index stay loaded, so every other convo-tui command (and
`convo-tui mcp`) is answered at once; the sources are watched and what
changes is indexed within seconds. Ctrl+C (or SIGTERM) stops it cleanly.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from convo_tui.cli.common import add_store_options, settings_from_args
from convo_tui.cli.interrupts import StopRequest
from convo_tui.core.errors import ConvoError

if TYPE_CHECKING:
    from convo_tui.core.engine import Engine
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
    parser.add_argument(
        "--idle-exit",
        type=_seconds,
        metavar="SECONDS",
        help="stop once no command has asked anything for this long (what `keep_warm` starts)",
    )
    add_store_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from convo_tui.core.holder import client, protocol
    from convo_tui.core.holder.access import open_local, open_when_free
    from convo_tui.core.holder.release import release

    settings = settings_from_args(args)
    # A keep-warm holder waits for the command that started it to let the index go.
    opener = open_when_free if args.idle_exit else open_local
    paths = [Path(p).expanduser() for p in args.paths]
    for path in paths:
        if not path.exists():
            raise ConvoError(f"{path}: no such file or folder")
    if not settings.qdrant_url:
        try:
            hello = client.call(protocol.socket_path(settings.index_dir), "hello", {"release": release()})
        except client.NoHolder:
            pass
        except client.HolderGone:
            # A keep-warm holder of another release stepping down (core/holder/release.py):
            # the index is this serve's once it lets go.
            opener = open_when_free
        else:
            raise ConvoError(f"index {settings.index_dir} is already served by pid {hello.get('pid')}")
    err = sys.stderr
    # The first Ctrl+C or SIGTERM is a request (cli/interrupts.py): the running index run
    # stops within a model batch, the watch ends, and closing the library below cancels
    # the clients' runs, lets their other requests finish and joins every thread before
    # the store closes and the interpreter exits.
    stopped_because: list[str] = []

    def on_idle(reason: str) -> None:
        stopped_because.append(reason)
        stop.set()

    with (
        StopRequest() as stop,
        opener(settings, must_serve=True, idle_exit=args.idle_exit, on_idle=on_idle) as library,
    ):
        _serve(library, paths, args.no_watch, stop, err)
        if stopped_because:
            _say(err, f"{stopped_because[0]}: stopping")
        else:
            _say(err, "stopping: finishing the requests under way")
    _say(err, "stopped serving")
    return 0


def _serve(library: Engine, paths: list[Path], no_watch: bool, stop: StopRequest, err: TextIO) -> None:
    from convo_tui.core.holder.watch import watch_and_index, watched_roots

    _say(err, f"serving {library.settings.index_dir} (pid {_pid()}); Ctrl+C stops")
    _say(err, "loading the embedding model")
    library.load_model()
    if no_watch or stop.is_set():
        _serve_until(stop, err)
        return
    roots = watched_roots(paths or library.default_paths())
    report = library.index(roots, cancel=stop)
    _say(err, _summary(report))
    if not roots:
        _say(err, "no source folder to watch; serving only")
        _serve_until(stop, err)
        return

    def watching() -> None:
        _say(err, f"watching {', '.join(str(r) for r in roots)}")
        _say(err, "ready")

    watch_and_index(library, roots, stop, on_report=lambda r: _report(r, err), on_watching=watching)


def _serve_until(stop: StopRequest, err: TextIO) -> None:
    _say(err, "ready")
    while not stop.wait():
        pass


def _seconds(value: str) -> float:
    """`--idle-exit`: a positive number of seconds, at most the one maximum (keep_warm's too)."""
    from convo_tui.core.limits import MAX_COUNT

    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds <= MAX_COUNT:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds over 0 and at most {MAX_COUNT}")
    return seconds


def _say(err: TextIO, text: str) -> None:
    err.write(f"convo-tui: {text}\n")
    err.flush()


def _pid() -> int:
    import os

    return os.getpid()


def _summary(report: IndexReport) -> str:
    """One line that fits 80 columns after `convo-tui: `."""
    return (
        f"indexed {report.added} new, {report.updated} updated, {report.unchanged} unchanged; "
        f"{report.sessions} sessions, {report.points} points"
    )


def _report(report: IndexReport, err: TextIO) -> None:
    if report.added or report.updated or report.skipped:
        _say(err, _summary(report))
        for path, reason in report.skipped:
            _say(err, f"skipped {path}: {reason}")
