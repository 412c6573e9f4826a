"""`convo-tui sessions`: what the index holds, newest first."""

from __future__ import annotations

import argparse
import json
import sys

from cli.common import add_store_options, settings_from_args


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("sessions", help="list indexed sessions, newest first")
    parser.add_argument("--project", metavar="P", help="only this project")
    parser.add_argument("--json", action="store_true", help="one JSON object per session")
    add_store_options(parser, model=False)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from core.library import Library

    with Library.open(settings_from_args(args), read_only=True) as library:
        summaries = library.sessions(args.project)
    out = sys.stdout
    for s in summaries:
        if args.json:
            out.write(json.dumps(s.to_json(), ensure_ascii=False) + "\n")
            continue
        first = s.started_at.strftime("%Y-%m-%d %H:%M") if s.started_at else "-"
        last = s.updated_at.strftime("%Y-%m-%d %H:%M") if s.updated_at else "-"
        gone = "  (file gone)" if s.orphaned else ""
        out.write(
            f"{s.id}  {s.title}\n    {s.project or '-'} · {s.source} · {s.message_count} messages · "
            f"{s.turn_count} turns · {first} → {last}{gone}\n"
        )
    return 0
