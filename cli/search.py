"""`convo-tui search QUERY`: the best matching turns, as text or JSON lines."""

from __future__ import annotations

import argparse
import sys

from convo_tui.cli import json_lines
from convo_tui.cli.common import add_store_options, local_time, open_index, settings_from_args
from convo_tui.core.engine import Engine, Readiness
from convo_tui.core.errors import ConvoError, QueryError
from convo_tui.core.hits import Hit
from convo_tui.core.limits import MAX_COUNT, check_count
from convo_tui.core.redact import display
from convo_tui.core.search.highlight import query_terms
from convo_tui.core.search.query import (
    KEYS,
    filters_match,
    parse_query,
    unknown_machine,
    unknown_project,
    unknown_source,
    unknown_tag,
)
from convo_tui.core.search.snippets import snippet
from convo_tui.core.settings import SEARCH_MODES
from convo_tui.core.unicode import visible_controls


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "search",
        help='search the index (filters: project: session: role: tool: has:tools source: machine: tag: after: before: "phrase")',
        description="Search indexed conversations. Filters go inside the query, e.g. 'qdrant project:myapp after:2026-01-01'.",
        option_hint=filter_hint,
    )
    parser.add_argument(
        "query", metavar="QUERY", nargs="+", help='words, "quoted phrases" and filters (several words need no quotes)'
    )
    parser.add_argument(
        "--limit", type=int, default=None, metavar="N", help=f"number of results, 1 to {MAX_COUNT:,} (default 10)"
    )
    parser.add_argument("--mode", choices=SEARCH_MODES, default=None, help="hybrid (default), semantic, keyword or fuzzy")
    parser.add_argument("--json", action="store_true", help="one JSON object per hit")
    add_store_options(parser, model=False)
    parser.set_defaults(func=run)


# Options people reach for that are filters here, as other tools spell them.
_FILTER_OPTIONS = {"since": "after", "from": "after", "until": "before", "to": "before", "tools": "has"}


def filter_hint(option: str, value: str | None) -> str | None:
    """`search --since 3d` -> put `after:3d` inside the query."""
    name, _, joined = option.lstrip("-").partition("=")
    key = _FILTER_OPTIONS.get(name, name)
    if key not in KEYS:
        return None
    shown = "tools" if key == "has" else (joined or value or "VALUE")
    return f"filters go inside the query: convo-tui search 'your words {key}:{shown}'"


def run(args: argparse.Namespace) -> int:
    if isinstance(args.query, list):  # `search how we set up qdrant`, unquoted: one query all the same
        args.query = " ".join(args.query)
    settings = settings_from_args(args)
    limit = check_count("--limit", args.limit, minimum=1) if args.limit is not None else settings.search_limit
    mode = args.mode or settings.search_mode
    parsed = parse_query(args.query)  # a bad filter is one line before the index is opened
    if not parsed.text and not parsed.phrases and not parsed.has_filters:
        raise QueryError('the query is empty: give words, a "phrase" or a filter such as project:NAME')
    with open_index(args, read_only=True) as library:
        hits = library.search(args.query, limit=limit, mode=mode)
        # Nothing found: whether the filters alone match anything (else no spelling helps).
        filtered_out = not hits and filters_match(library, args.query) is False
        wrong_project = (
            unknown_project(args.query, (p for p, _ in library.projects())) if filtered_out and parsed.project else None
        )
        wrong_tag = _wrong_tag(library, args.query) if filtered_out and parsed.tag else None
        # How much of the history the meaning part could search (phase 2 may still be running).
        ready = library.readiness() if mode in MEANING_MODES and hits else None
    out = sys.stdout
    terms = query_terms(parsed.text, list(parsed.phrases))
    coverage = _coverage(ready)
    for hit in hits:
        if args.json:
            data = hit.to_json()
            data["session_title"] = display(hit.session_title)  # masked as the text line masks it
            if coverage is not None:
                data["coverage"] = coverage
            out.write(json_lines.dumps(data) + "\n")
        else:
            out.write(format_hit(hit, terms))
    if not hits and not args.json:  # JSON lines: none is the answer
        # The app's order (tui/screens/search_empty.py): source, machine, tag, project.
        wrong = unknown_source(args.query) if parsed.source else None
        if filtered_out and parsed.machine and not wrong:
            wrong = unknown_machine(args.query, (remote.name for remote in settings.remotes))
        if filtered_out and parsed.tag and not wrong:
            wrong = wrong_tag
        wrong = wrong or wrong_project
        if wrong:
            hint = f" ({wrong})"
        elif filtered_out:
            hint = " (no conversation matches its filters alone)"
        elif parsed.text and mode != "fuzzy":
            hint = " (misspelt? --mode fuzzy matches near spellings)"
        else:
            hint = ""
        print(f"convo-tui: no results for {args.query!r}{hint}", file=sys.stderr)
    if ready is not None and ready.texts_ready < ready.texts_total and not args.json:
        print(
            f"convo-tui: {ready.texts_ready}/{ready.texts_total} texts ({ready.percent}) searchable by meaning so far; "
            "keyword search covers every session",
            file=sys.stderr,
        )
    return 0


MEANING_MODES = ("hybrid", "semantic")


def _wrong_tag(library: Engine, query: str) -> str | None:
    """Why `tag:` found nothing, when it names no tag (no hint from a holder of an older
    convo-tui, which has no list of tags to give)."""
    try:
        tags = [tag for tag, _ in library.tags()]
    except ConvoError:
        return None
    return unknown_tag(query, tags)


def _coverage(ready: Readiness | None) -> dict[str, float | int] | None:
    """What `--json` adds to each hit: how much of the index the meaning part covered."""
    if ready is None:
        return None
    return {"texts_ready": ready.texts_ready, "texts_total": ready.texts_total, "fraction": round(ready.fraction, 4)}


def format_hit(hit: Hit, terms: list[str]) -> str:
    """One result as `search` prints it: score, date, project, title, id; then the passages that matched."""
    when = local_time(hit.timestamp, "%Y-%m-%d") if hit.timestamp else "----------"
    where = visible_controls(f"{hit.project or '-'}@{hit.machine}" if hit.machine else hit.project or "-")
    sid = visible_controls(hit.session_id)  # a transcript's: written out, not obeyed
    head = f"{hit.score:.2f}  {when}  {where}  {display(hit.session_title) or sid}  [{sid} #{hit.turn_index}]"
    lines = [head]
    for label, text in (("user", hit.user_text), ("ai", hit.ai_text)):
        if text.strip():  # the passage around the query's words, as cards show it (the start when none is there)
            lines.append(f"    {label}: {snippet(text, terms, 160)}")
    if hit.part:  # the words matched only there: show where, around the match
        lines.append(f"    {hit.part}: {snippet(' '.join(hit.part_text.split()), terms, 160)}")
    if hit.tools:
        lines.append(f"    tools: {', '.join(hit.tools)}")
    return "\n".join(lines) + "\n\n"
