"""The sessions of tests/fixtures/tokens and tests/fixtures/cost, whose token counts are known
(the expected amounts in the cost tests are worked out by hand from them)."""

from __future__ import annotations

from pathlib import Path

from convo_tui.core.model import Session
from convo_tui.core.sources import parse_path

from tests.helpers.sqlite_fixtures import build_tree
from tests.paths import FIXTURES

TRANSCRIPTS = (".jsonl", ".json", ".db")


def cost_corpus(folder: Path) -> Path:
    """Both fixture folders in one tree (OpenCode's database built from its SQL)."""
    build_tree(FIXTURES / "tokens", folder)
    build_tree(FIXTURES / "cost", folder / "cost")
    return folder


def cost_sessions(folder: Path) -> list[Session]:
    corpus = cost_corpus(folder)
    return [s for f in sorted(corpus.rglob("*")) if f.is_file() and f.suffix in TRANSCRIPTS for s in parse_path(f)]
