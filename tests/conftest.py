"""Test isolation: every test gets its own config and index folders, no network."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"

# Set before any test module imports the app or fastembed.
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["NO_COLOR"] = os.environ.get("NO_COLOR", "")


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path_factory, monkeypatch):
    root = tmp_path_factory.mktemp("convo-home")
    monkeypatch.setenv("CONVO_TUI_CONFIG", str(root / "config.toml"))
    monkeypatch.setenv("CONVO_TUI_INDEX_DIR", str(root / "index"))
    # Keep discovery of the tools' default places inside the temp home.
    monkeypatch.setenv("HOME", str(root / "home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root / "home" / ".claude"))
    # The other tools' own overrides would point discovery out of the temp home.
    for name in ("CODEX_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "APPDATA", "LOCALAPPDATA", "GEMINI_CLI_HOME"):
        monkeypatch.delenv(name, raising=False)
    (root / "home").mkdir()
    yield root


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES
