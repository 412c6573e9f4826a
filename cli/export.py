"""`convo-tui export SESSION [--format html|md|json] [-o FILE]`: one session as a file to share.

SESSION is an indexed session's id, a unique id prefix (8 characters or
more), or a transcript file holding one session. HTML is one self-contained
page (no network), Markdown renders on GitHub, JSON is `show --json`'s shape
with the usage and cost. Secrets are masked unless `--no-redact`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from convo_tui.cli.common import add_store_options, find_session, open_index, settings_from_args
from convo_tui.core.errors import ConvoError
from convo_tui.core.model import Session
from convo_tui.core.unicode import visible_controls

FORMAT_OF_SUFFIX = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md", ".json": "json"}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write one session as a self-contained HTML page, GitHub Markdown or JSON",
        description="Export one session: header (tool, project, model, dates, tokens, cost), the user's and the AI's "
        "messages, thinking and tool calls (folded in HTML and Markdown), code highlighted. Secrets are masked.",
    )
    parser.add_argument(
        "session", metavar="SESSION", help="a session id, a unique id prefix (8+ characters), or a transcript file"
    )
    parser.add_argument("--format", choices=("html", "md", "json"), help="default: from -o's suffix, else html")
    parser.add_argument("-o", "--output", metavar="FILE", help="write here (default: standard output)")
    parser.add_argument("--no-redact", action="store_true", help="keep secrets as they are in the transcript")
    add_store_options(parser, model=False)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from convo_tui.core.cost.prices import price_table
    from convo_tui.core.export import render_export
    from convo_tui.core.redact import redact

    settings = settings_from_args(args)
    fmt = args.format or (FORMAT_OF_SUFFIX.get(Path(args.output).suffix.lower()) if args.output else None) or "html"
    session, tags, description = _session(args)
    keep = args.no_redact or not settings.redact
    shown = (lambda t: t) if keep else redact
    text = render_export(session, fmt, price_table(settings), shown, tags=tags, description=description)
    if not args.output:
        sys.stdout.write(text)
        return 0
    target = Path(args.output).expanduser()
    try:
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        raise ConvoError(f"{target}: cannot write ({exc.strerror or exc})") from None
    print(f"exported {visible_controls(session.id)} ({fmt}, {len(text.encode()) / 1024:.1f} KB) to {target}", file=sys.stderr)
    return 0


def _session(args: argparse.Namespace) -> tuple[Session, list[str], str]:
    """The session, with the tags and description the user gave it in the index (a
    transcript file exported as it is has none)."""
    if os.path.isfile(args.session):
        from convo_tui.core.sources import parse_path

        sessions = parse_path(args.session)
        if len(sessions) != 1:
            ids = ", ".join(s.id for s in sessions[:3])
            raise ConvoError(f"{args.session}: holds {len(sessions)} sessions ({ids}…); index it and export one by id")
        return sessions[0], [], ""
    with open_index(args, read_only=True) as engine:
        session = find_session(engine, args.session)
        summary = engine.session_summary(session.id)
        return session, summary.tags, summary.description
