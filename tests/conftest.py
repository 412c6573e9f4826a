"""Test isolation: every test gets its own config and index folders, no network."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
XDG_DIRS = {
    "XDG_CACHE_HOME": ".cache",
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
}

# Set before any test module imports the app or fastembed.
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["ORT_DISABLE_TELEMETRY"] = "1"
os.environ["NO_COLOR"] = os.environ.get("NO_COLOR", "")


def _point_home_at(patch: pytest.MonkeyPatch, home: Path) -> None:
    patch.setenv("HOME", str(home))
    patch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    for name, sub in XDG_DIRS.items():
        patch.setenv(name, str(home / sub))
    # The other tools' own overrides would point discovery out of the temp home.
    for name in ("CODEX_HOME", "APPDATA", "LOCALAPPDATA", "GEMINI_CLI_HOME"):
        patch.delenv(name, raising=False)
    home.mkdir(exist_ok=True)


@pytest.fixture(scope="session", autouse=True)
def isolated_session_home(tmp_path_factory):
    """A temp home for module- and session-scoped fixtures, which run before
    the per-test one below (a shared Library loads the model: its cache)."""
    with pytest.MonkeyPatch.context() as patch:
        _point_home_at(patch, tmp_path_factory.mktemp("session-home") / "home")
        yield


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path_factory, monkeypatch):
    root = tmp_path_factory.mktemp("convo-home")
    monkeypatch.setenv("CONVO_TUI_CONFIG", str(root / "config.toml"))
    monkeypatch.setenv("CONVO_TUI_INDEX_DIR", str(root / "index"))
    # Keep discovery of the tools' default places, and every cache, config or
    # data folder a library picks from HOME or XDG_*, inside the temp home: no
    # test writes into the real one (onnxruntime, fastembed, platformdirs).
    _point_home_at(monkeypatch, root / "home")
    yield root


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES
