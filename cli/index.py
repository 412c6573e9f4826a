"""`convo-tui index [PATH ...]`: bring the index up to date (incremental)."""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

from convo_tui.cli.common import add_store_options, open_index, settings_from_args

# `index` finished but some files could not be indexed (each named on its own line).
EXIT_SKIPPED = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "index",
        help="index transcripts (default: the tools' usual places and configured sources)",
        description="Index transcripts incrementally: unchanged files are skipped, changed ones replaced.",
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
    with open_index(args, allow_mismatch=args.rebuild) as library:
        report = run_with_progress(library, paths, args.rebuild)
    print_report(report)
    if report.cancelled:
        return 130
    if report.skipped:
        # Done, but not with everything: scripts and CI can tell (README: exit codes).
        files = len({path for path, _reason in report.skipped})
        print(f"convo-tui: {files} file(s) skipped (listed above); everything else is indexed", file=sys.stderr)
        return EXIT_SKIPPED
    return 0


def run_with_progress(library, paths, rebuild):
    cancel = threading.Event()
    if not sys.stderr.isatty():
        try:
            return library.index(paths, cancel=cancel, rebuild=rebuild)
        except KeyboardInterrupt:
            cancel.set()
            raise
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    with Progress(
        TextColumn("[bold]{task.description:<10}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[unit]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[name]}", style="dim"),
        transient=True,
    ) as bar:
        loading = bar.add_task("loading", total=None, unit="", name="embedding model")
        library.load_model()
        bar.remove_task(loading)
        keyword = bar.add_task("searchable", total=None, unit="files", name="")
        semantic = bar.add_task("semantic", total=None, unit="texts", name="waiting for the files", start=False)

        def progress(p) -> None:
            if p.phase in ("scan", "index"):
                name = p.path.rsplit("/", 1)[-1][:40] if p.path else ""
                unit = "files checked" if p.phase == "scan" else f"files · {p.sessions} sessions searchable"
                bar.update(keyword, completed=p.done, total=p.total or None, unit=unit, name=name)
            elif p.phase == "semantic":
                bar.update(keyword, completed=1, total=1, unit=f"· {p.sessions} sessions searchable", name="")
                if not bar.tasks[semantic].started:
                    bar.start_task(semantic)
                bar.update(semantic, completed=p.done, total=p.total or 1, name="")
            elif p.phase == "optimize":
                bar.update(semantic, name="building the search graph")

        return library.index(paths, progress=progress, cancel=cancel, rebuild=rebuild)


def print_report(report) -> None:
    out = sys.stdout
    out.write(
        f"sessions: {report.added} added, {report.updated} updated, {report.unchanged} unchanged, "
        f"{report.removed} removed; {len(report.skipped)} file(s) skipped\n"
    )
    for path, reason in report.skipped:
        out.write(f"  skipped {path}: {reason}\n")
    out.write(f"index: {report.sessions} sessions, {report.points} points ({report.seconds:.1f} s)\n")
    if report.semantic_total:
        share = report.semantic_ready / report.semantic_total
        out.write(
            f"semantic: {report.semantic_ready}/{report.semantic_total} texts with vectors ({share:.0%}); "
            f"{report.embedded} embedded this run, keyword-searchable after {report.keyword_seconds:.1f} s\n"
        )
    if report.cancelled:
        out.write("cancelled: what was published stays searchable; run `convo-tui index` again to finish\n")
    for line in report.notes:  # about the run, not a file: an unreachable machine, a full archive, a cache started afresh
        print(f"convo-tui: {line}", file=sys.stderr)
