"""The commands that read the index, in a terminal of 80x24 (and 120x40): search, show
(an id prefix too, issue 23), sessions, context and sources, on this worker's demo index."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.terminal import convo_tui

QDRANT_SESSION = "c3d4e5f6-1a2b-4c3d-8e9f-0a1b2c3d4e5f"  # tui/demo/corpus: "set up the Qdrant collection"


def _run(terminal, demo_folder: Path, *args: str, cols: int = 80, rows: int = 24) -> tuple[int, str]:
    term = terminal([*convo_tui(), *args, "--index-dir", str(demo_folder / "index")], cols=cols, rows=rows)
    status = term.wait_exit()
    assert "Traceback" not in term.raw, term.scrollback()
    return status, term.scrollback()


@pytest.mark.parametrize(("cols", "rows"), [(80, 24), (120, 40)])
def test_search_and_sessions(terminal, demo_folder: Path, cols: int, rows: int):
    status, shown = _run(terminal, demo_folder, "search", "qdrant collection", "--limit", "3", cols=cols, rows=rows)
    assert status == 0
    first = next(line for line in shown.splitlines() if re.match(r"^\d\.\d\d ", line))
    assert "recall" in first and "Qdrant collection" in first
    assert QDRANT_SESSION in shown.replace("\n", "")  # the id may wrap at 80 columns

    status, shown = _run(terminal, demo_folder, "sessions", cols=cols, rows=rows)
    assert status == 0
    assert len(re.findall(r"^    \S.* · \d+ messages? · \d+ turns? · ", shown, re.M)) == 15  # one detail line a session


def test_show_takes_an_id_prefix_as_cards_show_it(terminal, demo_folder: Path):
    status, shown = _run(terminal, demo_folder, "show", QDRANT_SESSION[:8])
    assert status == 0
    assert f"id:      {QDRANT_SESSION}" in shown and "How do we set up the Qdrant collection" in shown

    status, shown = _run(terminal, demo_folder, "show", "deadbeef")
    assert status == 1
    assert [line for line in shown.splitlines() if line.strip()] == [
        "convo-tui: deadbeef: no such file, folder or indexed session"
    ]


def test_context_for_a_session_named_by_its_prefix(terminal, demo_folder: Path):
    status, shown = _run(
        terminal, demo_folder, "context", "how do I store bm25", "--session", QDRANT_SESSION[:8], cols=120, rows=40
    )
    assert status == 0
    assert '"role": "system"' in shown and "Conversation (recent):" in shown.replace("\n", "")
    assert "用户提问: how do I store bm25" in shown.replace("\n", "")


def test_sources_names_every_place_it_checked_and_how_much_is_searchable(terminal, demo_folder: Path, bundled_model: Path):
    bundled_model.write_text(bundled_model.read_text() + f'sources = ["{demo_folder / "corpus"}"]\n', encoding="utf-8")
    status, shown = _run(terminal, demo_folder, "sources", cols=120, rows=40)
    assert status == 0
    assert f"Configured path (config): {demo_folder / 'corpus'}" in shown
    assert re.search(r"^  15 sessions in \d+ files", shown, re.M)
    assert "Also looked in (nothing there):" in shown and "Codex CLI sessions:" in shown
    assert re.search(r"^index: 15 sessions searchable by keyword; (\d+)/\1 texts \(100%\) searchable by meaning$", shown, re.M)
