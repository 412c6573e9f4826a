"""`convo-tui sources`: where transcripts were looked for and what each place holds."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from convo_tui.cli.common import add_store_options, settings_from_args
from convo_tui.core.index.discover import LocationReport, default_locations, places_looked, survey


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("sources", help="list the places transcripts are read from and what they hold")
    parser.add_argument("--json", action="store_true", help="one JSON object per location")
    add_store_options(parser, model=False)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from convo_tui.core.holder.access import index_report

    settings = settings_from_args(args)
    reports = survey(default_locations(settings))
    if args.json:
        for report in reports:
            print(json.dumps(as_json(report), ensure_ascii=False))
        for reading in index_report(settings)[1]:
            print(json.dumps({"reading": asdict(reading)}, ensure_ascii=False))
        return 0
    for report in reports:
        print(describe(report))
    # How much of the index is searchable, and how each source's files read, asked of its holder if any.
    readiness, readings = index_report(settings)
    if readiness:
        print(readiness)
    if readings:
        print("read at the last indexing (unknown parts: a new version of the tool wrote something not read yet):")
        for reading in readings:
            print(f"  {reading.describe()}")
    if not any(report.files for report in reports):
        print("No transcripts found. Looked in:")
        for place in places_looked(settings):
            print(f"  {place}")
        print(f"Add folders or files to `sources` in {settings.config_path}, or pass paths to `convo-tui index`.")
    return 0


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
    head = f"{where.name} ({where.origin}): {where.path}"
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
    told = "".join(f"\n  skipped {path}: {reason}" for path, reason in report.problems)
    return f"{head}\n  {detail}{told}"
