"""`convo-tui archive [status | export FILE | import FILE]`: the copy of every transcript read.

`export` writes the archive and the user's own edits (titles, descriptions,
stars, tags, display settings, deletions) to one compressed file; `import`
merges such a file (never duplicating) and indexes what it brought, so a new
machine gets the whole history back.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from convo_tui.cli.common import add_store_options, open_index, settings_from_args
from convo_tui.cli.index import EXIT_SKIPPED, index_with_progress, print_report
from convo_tui.cli.interrupts import StopRequest


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "archive",
        help="the compressed copy of every transcript read: status, export, import",
        description="Every transcript convo-tui reads is kept, compressed, in its archive: sessions whose "
        "file a tool deleted stay searchable and survive `index --rebuild`. Export it with your edits to "
        "one file; import that file on another machine.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    status = actions.add_parser("status", help="what the archive holds and what lives only there (the default)")
    add_store_options(status, model=False)
    export = actions.add_parser(
        "export", help="write the archive and your edits (titles, stars, tags, notes) to one compressed file"
    )
    export.add_argument("file", metavar="FILE", help="the file to write (e.g. history.tar.zst)")
    add_store_options(export, model=False)
    imported = actions.add_parser("import", help="merge an exported file into this archive, then index what it brought")
    imported.add_argument("file", metavar="FILE", help="a file written by `convo-tui archive export`")
    imported.add_argument("--no-index", action="store_true", help="only merge; the next `convo-tui index` indexes it")
    add_store_options(imported)
    add_store_options(parser, model=False)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    settings_from_args(args)  # a bad config file is reported before anything runs
    action = args.action or "status"
    if action == "export":
        with open_index(args, read_only=True) as engine:
            done = engine.export_archive(Path(args.file))
        print(
            f"exported {done.files} transcript files ({done.versions} versions) and the edits of "
            f"{done.annotations} sessions to {done.path} ({done.bytes / 2**20:.1f} MB)"
        )
        return 0
    if action == "import":
        source = Path(args.file).expanduser()
        if not source.is_file():
            print(f"convo-tui: {source}: no such file", file=sys.stderr)
            return 1
        with open_index(args) as engine:
            got = engine.import_archive(source)
            origin = f" from {got.machine}" if got.machine else ""
            print(
                f"imported{origin}: {got.files} new transcript files, {got.versions} new versions, "
                f"edits of {got.annotations} sessions" + (f"; {got.skipped} damaged versions left out" if got.skipped else "")
            )
            if args.no_index:
                return 0
            with StopRequest() as stop:
                report = index_with_progress(engine, None, stop, False)
        print_report(report)
        if report.cancelled:
            return 130
        return EXIT_SKIPPED if report.skipped else 0
    with open_index(args, read_only=True) as engine:
        status = engine.archive_status()
    for line in status.lines():
        print(line)
    return 0
