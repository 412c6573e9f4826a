"""The reader contract (docs/ARCHITECTURE.md, "Adding a source"), checked for every reader:
its README row is the one its metadata writes, a test module names the public project and
version its fixture follows, discovery knows its places (or the README says to add them),
and no sniffer takes another format's files: every fixture discovery would offer is detected
as its own format, first match winning in `_MODULES` order."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from convo_tui.core.index.discover import iter_source_files
from convo_tui.core.index.places import TOOL_PLACES
from convo_tui.core.sources import SourceFormat, detect, formats

from tests.helpers.sqlite_fixtures import build_tree
from tests.paths import FIXTURES, ROOT, TESTS

sys.path.insert(0, str(ROOT / "docs"))
import sources_table

FORMATS = formats()
# The test module of each reader (they name the project and version its fixtures follow).
TEST_MODULES = {
    "aider": "test_sources_aider.py",
    "amp": "test_sources_amp.py",
    "antigravity": "test_sources_antigravity.py",
    "chat-thread": "test_sources_chat_threads.py",
    "chatgpt": "test_sources_chatgpt.py",
    "claude-ai": "test_sources_claude_ai.py",
    "claude-code": "test_sources_claude.py",
    "claude-managed-agents": "test_sources_managed_agents.py",
    "claude-stream-json": "test_sources_claude_stream.py",
    "cline": "test_sources_cline.py",
    "codex": "test_sources_codex.py",
    "copilot-chat": "test_sources_copilot.py",
    "copilot-cli": "test_sources_copilot_cli.py",
    "crush": "test_sources_crush.py",
    "cursor": "test_sources_cursor.py",
    "cursor-cli": "test_sources_cursor_cli.py",
    "cursor-ide": "test_sources_cursor_ide.py",
    "factory-droid": "test_sources_factory_droid.py",
    "gemini-cli": "test_sources_gemini.py",
    "gemini-stream": "test_sources_gemini_stream.py",
    "goose": "test_sources_goose.py",
    "kimi-cli": "test_sources_kimi_cli.py",
    "kiro-cli": "test_sources_kiro.py",
    "openai": "test_sources_openai.py",
    "opencode": "test_sources_opencode.py",
    "openhands": "test_sources_openhands.py",
    "pi": "test_sources_pi.py",
    "qwen-code": "test_sources_qwen_code.py",
    "specstory": "test_sources_specstory.py",
}
# Fixture folder -> the formats its files may be detected as (None: not a transcript).
FIXTURE_FORMATS: dict[str, set[str]] = {
    "aider": {"aider"},
    "amp": {"amp"},
    "antigravity": {"antigravity"},
    "chat_threads": {"chat-thread"},
    "chatgpt": {"chatgpt"},
    "claude_ai": {"claude-ai"},
    "claude_code": {"claude-code"},
    "claude_stream": {"claude-stream-json"},
    "cline": {"cline"},
    "codex": {"codex"},
    "conversations": {"openai"},
    "copilot": {"copilot-chat"},
    "copilot_cli": {"copilot-cli"},
    "crush": {"crush"},
    "cursor": {"cursor"},
    "cursor_cli": {"cursor-cli"},
    "cursor_ide": {"cursor-ide"},
    "factory": {"factory-droid"},
    "gemini": {"gemini-cli"},
    "gemini_stream": {"gemini-stream"},
    "goose": {"goose"},
    "kimi": {"kimi-cli"},
    "kiro": {"kiro-cli"},
    "managed_agents": {"claude-managed-agents"},
    "openai": {"openai"},
    "opencode": {"opencode"},
    "openhands": {"openhands"},
    "pi": {"pi"},
    "qwen": {"qwen-code"},
    "refused": set(),
    "relevance": {"cursor"},
    "specstory": {"specstory"},
    "tokens": {"claude-code", "codex", "gemini-cli", "opencode"},
}
SAMPLE_FORMATS = {
    "amp": "amp",
    "antigravity": "antigravity",
    "managed": "claude-managed-agents",
    "chat": "chat-thread",
    "chatgpt": "chatgpt",
    "claude": "claude-code",
    "copilot_cli": "copilot-cli",
    "crush": "crush",
    "cursor": "cursor",
    "cursor_cli": "cursor-cli",
    "factory": "factory-droid",
    "goose": "goose",
    "kimi": "kimi-cli",
    "kiro": "kiro-cli",
    "openai": "openai",
    "openhands": "openhands",
    "pi": "pi",
    "qwen": "qwen-code",
    "specstory": "specstory",
}


def test_at_least_25_sources_are_read():
    assert len(FORMATS) >= 25
    assert len({f.name for f in FORMATS}) == len(FORMATS)


def test_the_readme_table_is_the_one_the_readers_write():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert sources_table.current(readme) == sources_table.block(), "run `python docs/sources_table.py`"
    for fmt in FORMATS:
        assert f"(`{fmt.name}`)" in readme


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_every_reader_says_what_it_reads(fmt: SourceFormat):
    for field in ("tool", "versions", "places", "resume", "keeps"):
        assert getattr(fmt, field).strip(), f"{fmt.name}: FORMAT.{field} is empty"


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_every_reader_has_a_test_naming_what_its_fixtures_follow(fmt: SourceFormat):
    module = TESTS / "unit" / TEST_MODULES[fmt.name]
    doc = module.read_text(encoding="utf-8").split('"""')[1]
    assert "ixtures follow" in doc or "ixture follows" in doc, f"{module.name}: its docstring names no public project and version"
    assert any(ch.isdigit() for ch in doc), f"{module.name}: no version named"


def test_discovery_knows_every_tool_with_a_usual_place():
    discovered = {fmt for _, fmt, _ in TOOL_PLACES}
    for fmt in FORMATS:
        assert fmt.name in discovered or "sources`" in fmt.places, f"{fmt.name}: no default place and no word on adding one"


def _offered(folder: Path, tmp: Path) -> list[Path]:
    """The files discovery would offer from a fixture folder (SQL scripts built into databases first)."""
    if any(folder.rglob("*.sql")):
        folder = build_tree(folder, tmp / folder.name)
    return list(iter_source_files([folder]))


@pytest.mark.parametrize("name", sorted(FIXTURE_FORMATS))
def test_no_sniffer_takes_another_formats_fixtures(name: str, tmp_path: Path):
    allowed = FIXTURE_FORMATS[name]
    found = {path: detect(path) for path in _offered(FIXTURES / name, tmp_path)}
    wrong = {str(path): fmt.name for path, fmt in found.items() if fmt is not None and fmt.name not in allowed}
    assert wrong == {}
    assert {fmt.name for fmt in found.values() if fmt is not None} == allowed


@pytest.mark.parametrize("name", sorted(SAMPLE_FORMATS))
def test_no_sniffer_takes_another_formats_samples(name: str, tmp_path: Path):
    folder = FIXTURES / "reliability" / "samples" / name
    if not folder.exists():
        folder = FIXTURES / "reliability" / "formats" / name
    found = {detect(path) for path in _offered(folder, tmp_path)}
    assert {fmt.name for fmt in found if fmt is not None} == {SAMPLE_FORMATS[name]}


def test_every_format_has_a_fixture_of_its_own():
    covered = set().union(*FIXTURE_FORMATS.values())
    assert covered == {f.name for f in FORMATS}
