"""`convo-tui sources`: where transcripts were looked for and what each place holds."""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from convo_tui.cli import json_lines
from convo_tui.cli.common import add_store_options, settings_from_args
from convo_tui.core.index.discover import LocationReport, checked_locations, default_locations, survey
from convo_tui.core.unicode import visible_controls

if TYPE_CHECKING:
    from convo_tui.core.archive.status import ArchiveStatus
    from convo_tui.core.engine import SourceReading
    from convo_tui.core.settings import Settings


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("sources", help="list the places transcripts are read from and what they hold")
    parser.add_argument("--json", action="store_true", help="one JSON object per location")
    add_store_options(parser, model=False)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    reports = survey(default_locations(settings))
    # The default places that are not there: said too, so "nothing from Codex" has an answer.
    missing = [loc for loc in checked_locations() if not loc.path.exists()] if settings.discover_defaults else []
    if args.json:
        for report in reports:
            print(json_lines.dumps(as_json(report)))
        for location in missing:
            print(json_lines.dumps(as_json(LocationReport(location, False, 0, 0, {}, 0))))
        facts = index_facts(settings)
        for reading in facts.readings if facts else []:
            print(json_lines.dumps({"reading": asdict(reading)}))
        if facts is not None and facts.archive is not None:
            print(json_lines.dumps({"archive": asdict(facts.archive)}))
        return 0
    for report in reports:
        print(describe(report))
    found = any(report.files for report in reports)
    if missing:
        print("Also looked in (nothing there):" if found else "No transcripts found. Looked in:")
        groups: dict[str, list[str]] = {}
        for location in missing:
            groups.setdefault(location.name, []).append(_tilde(location.path))
        for name, places in groups.items():
            print(f"  {name}:")
            for place in places:
                print(f"    {place}")
    elif not found:
        print("No transcripts found.")
    if not found:
        print(f"Add folders or files to `sources` in {settings.config_path}, or pass paths to `convo-tui index`.")
    facts = index_facts(settings)  # asked of the index's holder if one runs
    if facts is not None:
        print(facts.readiness)
        if facts.readings:
            print("read at the last indexing (unknown parts: a newer tool version wrote them):")
            for reading in facts.readings:
                print(f"  {reading.describe()}")
        for line in facts.archive.lines() if facts.archive is not None else []:
            print(line)
    return 0


def _tilde(path: Path) -> str:
    """`~/.codex/sessions`: the places under the home folder, short enough for 80 columns."""
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) and path != home else str(path)


@dataclass
class IndexFacts:
    """What `sources` says of the index, read in one opening of it (or of its holder)."""

    readiness: str  # how much is searchable by keyword and by meaning (two lines)
    readings: list[SourceReading] = field(default_factory=list)  # per format: files read, skipped, drifted
    archive: ArchiveStatus | None = None


def index_facts(settings: Settings) -> IndexFacts | None:
    """The index's readiness, how each source's files read at their last indexing,
    and the archive's status; None when there is no index yet."""
    from convo_tui.core.errors import ConvoError
    from convo_tui.core.holder.access import has_index, open_engine

    if not has_index(settings):
        return None
    try:
        with open_engine(settings, read_only=True) as engine:
            return IndexFacts(engine.readiness(checked=True).describe(), engine.reading(), engine.archive_status())
    except ConvoError as exc:
        return IndexFacts(f"index: {exc}")


def as_json(report: LocationReport) -> dict:
    where = report.location
    return {
        "name": where.name,
        "path": str(where.path),
        "origin": where.origin,
        "format": where.format,
        "exists": report.exists,
        "files": report.files,
        "sessions": report.sessions,
        "formats": report.formats,
        "unknown": report.unknown,
        "problems": [{"path": str(path), "reason": reason} for path, reason in report.problems],
    }


def describe(report: LocationReport) -> str:
    where = report.location
    head = f"{where.name} ({where.origin}): {visible_controls(str(where.path))}"
    if not report.exists:
        return f"{head}\n  missing"
    if not report.files:
        detail = "no transcripts"
    else:
        kinds = ", ".join(f"{name} {count}" for name, count in sorted(report.formats.items()))
        detail = (
            f"{report.sessions} session{'s' * (report.sessions != 1)} in {report.files} file{'s' * (report.files != 1)} ({kinds})"
        )
    if report.unknown:
        detail += f"; {report.unknown} file{'s' * (report.unknown != 1)} of unknown format skipped"
    told = "".join(f"\n  skipped {visible_controls(str(path))}: {visible_controls(reason)}" for path, reason in report.problems)
    return f"{head}\n  {detail}{told}"
