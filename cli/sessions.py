"""`convo-tui sessions`: what the index holds, newest first."""

from __future__ import annotations

import argparse
import sys

from convo_tui.cli import json_lines
from convo_tui.cli.common import add_store_options, local_time, open_index
from convo_tui.core.annotations import tags_line
from convo_tui.core.hits import SessionSummary
from convo_tui.core.limits import MAX_COUNT, check_count
from convo_tui.core.redact import display
from convo_tui.core.search.query import near_names
from convo_tui.core.unicode import visible_controls


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("sessions", help="list indexed sessions, newest first")
    parser.add_argument("--project", metavar="P", help="only this project")
    parser.add_argument("--limit", type=int, default=None, metavar="N", help=f"the N newest, 1 to {MAX_COUNT:,} (default: all)")
    parser.add_argument("--json", action="store_true", help="one JSON object per session")
    add_store_options(parser, model=False)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    limit = check_count("--limit", args.limit, minimum=1) if args.limit is not None else None
    with open_index(args, read_only=True) as library:
        summaries = library.sessions(args.project, limit)
        near = near_names(args.project, (p for p, _ in library.projects())) if args.project and not summaries else []
    if args.project and not summaries and not args.json:
        hint = f": did you mean {' or '.join(near)}?" if near else ""
        print(f"convo-tui: no sessions in project {visible_controls(args.project)!r}{hint}", file=sys.stderr)
    out = sys.stdout
    for s in summaries:
        if args.json:
            data = s.to_json()
            data["title"] = display(s.title)  # masked as the text line masks it
            out.write(json_lines.dumps(data) + "\n")
            continue
        out.write(_format(s))
    return 0


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'s' * (number != 1)}"


def _format(s: SessionSummary) -> str:
    star = "★ " if s.starred else ""
    tags = "  " + tags_line(s.tags) if s.tags else ""
    gone = "  (file gone)" if s.orphaned else ""
    lines = [
        f"{star}{visible_controls(s.id)}  {display(s.title)}{visible_controls(tags)}",
        f"    {visible_controls(s.project or '-')} · {s.source} · {_count(s.message_count, 'message')} · "
        f"{_count(s.turn_count, 'turn')} · {local_time(s.started_at)} → {local_time(s.updated_at)}{gone}",
    ]
    if s.description:
        lines.append(f"    {display(s.description)}")
    return "\n".join(lines) + "\n"
