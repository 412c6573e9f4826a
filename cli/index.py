"""`convo-tui index [PATH ...]`: bring the index up to date (incremental)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from convo_tui.cli.common import add_store_options, open_index, settings_from_args
from convo_tui.cli.index_progress import progress_display
from convo_tui.cli.interrupts import StopRequest
from convo_tui.core.engine import whole_percent
from convo_tui.core.unicode import visible_controls

if TYPE_CHECKING:
    from convo_tui.core.engine import Engine
    from convo_tui.core.index.publish import IndexReport

# `index` finished but some files could not be indexed (each named on its own line).
EXIT_SKIPPED = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "index",
        help="index transcripts (default: the tools' usual places and configured sources)",
        description=(
            "Index transcripts incrementally: unchanged files are skipped, changed ones replaced. Keyword search "
            "works as soon as phase 1 publishes; phase 2 adds the vectors for search by meaning. Progress goes to "
            "stderr: bars in a terminal, plain lines otherwise. When another convo-tui holds the index, the run is "
            "handed to it. Ctrl+C stops within a model batch; what was published stays."
        ),
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or folders to index instead of the defaults")
    parser.add_argument("--rebuild", action="store_true", help="drop the index and build it again from scratch")
    add_store_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    settings_from_args(args)  # a bad config file is reported before anything runs
    paths = [Path(p).expanduser() for p in args.paths] or None
    for path in paths or []:
        if not path.exists():
            print(f"convo-tui: {path}: no such file or folder", file=sys.stderr)
            return 1
    # Ctrl+C (or SIGTERM) cancels the run: it stops within a model batch, keeps what was
    # published and leaves the holder serving in order; a second one stops at once.
    with StopRequest() as stop, open_index(args, allow_mismatch=args.rebuild, on_wait=_say) as library:
        report = index_with_progress(library, paths, stop, args.rebuild)
    print_report(report)
    if report.cancelled:
        return 130
    if report.skipped:
        # Done, but not with everything: scripts and CI can tell (README: exit codes).
        files = len({path for path, _reason in report.skipped})
        print(f"convo-tui: {files} file(s) skipped (listed above); everything else is indexed", file=sys.stderr)
        return EXIT_SKIPPED
    return 0


def index_with_progress(library: Engine, paths: list[Path] | None, stop: StopRequest, rebuild: bool) -> IndexReport:
    """An index run with its progress on stderr (bars in a terminal, plain lines otherwise)."""
    with progress_display(sys.stderr, library.served_by()) as display:
        return library.index(paths, progress=display, cancel=stop, rebuild=rebuild)


def _say(text: str) -> None:
    print(f"convo-tui: {text}", file=sys.stderr, flush=True)


def print_report(report) -> None:
    """What the run did, in lines that fit 80 columns; its notes on stderr."""
    out = sys.stdout
    if report.cancelled and not report.seconds:  # stopped before a run began here (a holder's run, a wait)
        out.write(f"{CANCELLED}\n")
        return
    out.write(
        f"sessions: {report.added} added, {report.updated} updated, {report.unchanged} unchanged, "
        f"{report.removed} removed; {len(report.skipped)} file(s) skipped\n"
    )
    for path, reason in report.skipped:
        out.write(f"  skipped {visible_controls(str(path))}: {visible_controls(reason)}\n")
    searchable = f"; keyword-searchable after {report.keyword_seconds:.1f} s" if report.semantic_total else ""
    out.write(f"index: {report.sessions} sessions, {report.points} points ({report.seconds:.1f} s{searchable})\n")
    if report.semantic_total:
        share = whole_percent(report.semantic_ready, report.semantic_total)
        out.write(
            f"semantic: {report.semantic_ready}/{report.semantic_total} texts with vectors ({share}); "
            f"{report.embedded} embedded this run\n"
        )
    if report.cancelled:
        out.write(f"{CANCELLED}\n")
    for line in report.notes:  # about the run, not a file: an unreachable machine, a full archive, a cache started afresh
        print(f"convo-tui: {line}", file=sys.stderr)


CANCELLED = "cancelled: what was published stays searchable; `convo-tui index` finishes it"
