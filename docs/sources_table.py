"""The README's table of sources, written from the readers' own metadata.

Each reader (core/sources/<format>.py) says in its `FORMAT` what it reads
(`tool`, `versions`, `places`, `resume`, `keeps`); this script renders those
fields as the table under "What it reads" in README.md, between two markers.
tests/unit/test_sources_contract.py fails when the README and the readers
disagree, so the table cannot drift. Run after changing a reader:

    python docs/sources_table.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from convo_tui.core.sources import SourceFormat, formats

README = Path(__file__).resolve().parent.parent / "README.md"
BEGIN = "<!-- sources table: written by docs/sources_table.py from the readers' FORMAT; do not edit by hand -->"
END = "<!-- end of sources table -->"
HEADER = (
    "| Source (`source:` name) | Versions read | Read from (Linux / macOS / Windows) | Resume (in the session's folder) | What is kept |\n"
    "|---|---|---|---|---|"
)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def row(fmt: SourceFormat) -> str:
    cells = [f"{fmt.tool} (`{fmt.name}`)", fmt.versions, fmt.places, fmt.resume, fmt.keeps]
    return "| " + " | ".join(_cell(cell) for cell in cells) + " |"


def table() -> str:
    """The table's Markdown, one row per reader, by the tool's name."""
    rows = sorted(formats(), key=lambda fmt: fmt.tool.lower().strip('"'))
    return "\n".join([HEADER, *(row(fmt) for fmt in rows)])


def block() -> str:
    return f"{BEGIN}\n{table()}\n{END}"


def current(readme: str) -> str:
    """The block as the README has it now ('' when the markers are missing)."""
    start, end = readme.find(BEGIN), readme.find(END)
    return readme[start : end + len(END)] if 0 <= start < end else ""


def main() -> int:
    readme = README.read_text(encoding="utf-8")
    old = current(readme)
    if not old:
        print(f"{README}: the markers of the sources table are missing", file=sys.stderr)
        return 1
    README.write_text(readme.replace(old, block()), encoding="utf-8")
    print(f"{README}: {len(formats())} sources")
    return 0


if __name__ == "__main__":
    sys.exit(main())
