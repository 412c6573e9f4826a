"""The engine's operations as the holder serves them: one table, both ends.

Each `Operation` names an `Engine` method (core/engine.py), its arguments
(checked where a request arrives, so a client's bad value is one line, not a
crash in the holder) and the codec of its result. The server calls the method
the table names; `RemoteEngine` encodes its arguments and decodes the answer
with the same entry. tests/engine/test_conformance.py checks that the table,
the Protocol and both implementations agree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from convo_tui.core.context import ChatMessage
from convo_tui.core.engine import ModelInfo, Readiness, SourceReading
from convo_tui.core.errors import ConvoError
from convo_tui.core.holder import codec
from convo_tui.core.limits import MAX_COUNT

_REQUIRED = object()


@dataclass(frozen=True)
class Kind:
    """An argument's type on the wire: how to check it, send it and read it back."""

    describe: str
    accepts: Callable[[Any], bool]
    to_wire: Callable[[Any], Any] = lambda value: value
    from_wire: Callable[[Any], Any] = lambda value: value


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT


TEXT = Kind("a string", lambda v: isinstance(v, str))
OPTIONAL_TEXT = Kind("a string or null", lambda v: v is None or isinstance(v, str))
COUNT = Kind(f"a whole number from 0 to {MAX_COUNT:,}", _is_count)
OPTIONAL_COUNT = Kind(f"a whole number from 0 to {MAX_COUNT:,} or null", lambda v: v is None or _is_count(v))
FLAG = Kind("true or false", lambda v: isinstance(v, bool))
OPTIONAL_FLAG = Kind("true, false or null", lambda v: v is None or isinstance(v, bool))
TEXTS = Kind("a list of strings", lambda v: isinstance(v, list) and all(isinstance(t, str) for t in v))
PATH = Kind(
    "a path",
    lambda v: isinstance(v, str | Path) and bool(str(v)) and "\0" not in str(v),
    to_wire=lambda v: str(Path(v).expanduser().absolute()),
    from_wire=lambda v: Path(v),
)
PATHS = Kind(
    "a list of paths or null",
    lambda v: v is None or (isinstance(v, list) and all(isinstance(p, str | Path) for p in v)),
    to_wire=lambda v: None if v is None else [str(Path(p).absolute()) for p in v],
    from_wire=lambda v: None if v is None else [Path(p) for p in v],
)


@dataclass(frozen=True)
class Param:
    name: str
    kind: Kind
    default: Any = _REQUIRED


@dataclass(frozen=True)
class Codec:
    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


def _many(one: Codec) -> Codec:
    return Codec(lambda items: [one.encode(i) for i in items], lambda items: [one.decode(i) for i in items])


HIT = Codec(lambda hit: hit.to_json(), codec.hit_from_json)
SUMMARY = Codec(lambda summary: summary.to_json(), codec.summary_from_json)
PAGE = Codec(lambda page: page.to_json(), codec.page_from_json)
SESSION = Codec(codec.session_json, codec.session_from_json)
STATS = Codec(codec.stats_json, codec.stats_from_json)
REPORT = Codec(codec.report_json, codec.report_from_json)
MESSAGE = Codec(lambda message: message.to_json(), lambda data: ChatMessage(data["role"], data["content"]))
READINESS = Codec(asdict, lambda data: Readiness(**data))
READING = Codec(asdict, lambda data: SourceReading(**{**data, "top": tuple((str(k), int(n)) for k, n in data.get("top", []))}))
MODEL_INFO = Codec(asdict, lambda data: ModelInfo(**data))
# (name, count) pairs: projects, tags.
PROJECTS = Codec(lambda pairs: [[name, count] for name, count in pairs], lambda pairs: [(str(n), int(c)) for n, c in pairs])
FLAGS = Codec(dict, lambda data: {str(k): bool(v) for k, v in data.items()})
BOOL = Codec(bool, bool)
INT = Codec(int, int)
NOTHING = Codec(lambda _: None, lambda _: None)


def _archive_record(name: str) -> Callable[[Any], Any]:
    """The decoder of one of the archive's records, imported when one arrives (a
    search need not import the archive: core/archive/status.py reads its folder)."""

    def decode(data: Any) -> Any:
        from convo_tui.core.archive import status

        return getattr(status, name)(**data)

    return decode


ARCHIVE_STATUS = Codec(asdict, _archive_record("ArchiveStatus"))
EXPORT_REPORT = Codec(asdict, _archive_record("ExportReport"))
IMPORT_REPORT = Codec(asdict, _archive_record("ImportReport"))


@dataclass(frozen=True)
class Operation:
    """One Engine method as served. `edit`: runs one at a time in the holder;
    `streams`: takes `progress` and `cancel`, which travel as progress lines and
    a closed connection rather than as arguments."""

    name: str
    params: tuple[Param, ...]
    result: Codec
    edit: bool = False
    streams: bool = False

    def to_wire(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The request's args from the method's arguments (the client side). A value that
        is its parameter's default is left out: a holder of an older convo-tui, which
        refuses arguments it does not know, still answers a request that does not use
        the newer ones (`session_page(around=...)`)."""
        return {
            p.name: p.kind.to_wire(values[p.name])
            for p in self.params
            if p.name in values and (p.default is _REQUIRED or values[p.name] != p.default)
        }

    def from_wire(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """The method's keyword arguments from a request's args, checked (the holder side)."""
        unknown = sorted(set(args) - {p.name for p in self.params})
        if unknown:
            raise ConvoError(f"{self.name}: unknown argument '{unknown[0]}'")
        values: dict[str, Any] = {}
        for param in self.params:
            if param.name not in args:
                if param.default is _REQUIRED:
                    raise ConvoError(f"{self.name}: '{param.name}' is required")
                continue
            value = args[param.name]
            if not param.kind.accepts(value):
                raise ConvoError(f"{self.name}: '{param.name}' must be {param.kind.describe}")
            values[param.name] = param.kind.from_wire(value)
        return values


def _op(name: str, result: Codec, *params: Param, edit: bool = False, streams: bool = False) -> Operation:
    return Operation(name, params, result, edit=edit, streams=streams)


_ID = Param("session_id", TEXT)
_MODE = Param("mode", TEXT, "hybrid")

OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        _op("load_model", NOTHING),
        _op("model_info", MODEL_INFO),
        _op(
            "search",
            _many(HIT),
            Param("query", TEXT),
            Param("limit", COUNT, 10),
            _MODE,
            Param("offset", COUNT, 0),
        ),
        _op("hits_in_session", _many(HIT), Param("query", TEXT), _ID, _MODE),
        _op(
            "context",
            _many(MESSAGE),
            Param("question", TEXT),
            Param("session_id", OPTIONAL_TEXT, None),
            Param("recent", COUNT, 10),
            Param("refs", COUNT, 5),
            Param("all_sessions", FLAG, False),
            Param("preferences", OPTIONAL_TEXT, None),
            Param("system", OPTIONAL_TEXT, None),
            Param("split", FLAG, False),
        ),
        _op("sessions", _many(SUMMARY), Param("project", OPTIONAL_TEXT, None), Param("limit", OPTIONAL_COUNT, None)),
        _op(
            "session_page",
            PAGE,
            Param("offset", COUNT, 0),
            Param("limit", COUNT, 100),
            Param("sort", TEXT, "date"),
            Param("starred_only", FLAG, False),
            Param("text", TEXT, ""),
            Param("around", TEXT, ""),
        ),
        _op("projects", PROJECTS),
        _op("tags", PROJECTS),
        _op("session", SESSION, _ID),
        _op("session_summary", SUMMARY, _ID),
        _op("resolve_session_id", Codec(str, str), _ID),
        _op("stats", STATS),
        _op("readiness", READINESS, Param("checked", FLAG, False)),
        _op("reading", _many(READING)),
        _op("rename_session", SUMMARY, _ID, Param("title", TEXT), edit=True),
        _op("describe_session", SUMMARY, _ID, Param("text", TEXT), edit=True),
        _op("star_session", SUMMARY, _ID, Param("starred", FLAG, True), edit=True),
        _op("tag_session", SUMMARY, _ID, Param("tags", TEXTS), Param("remove", FLAG, False), edit=True),
        _op("session_settings", FLAGS, _ID),
        _op(
            "set_session_settings",
            FLAGS,
            _ID,
            Param("hide_thinking", OPTIONAL_FLAG, None),
            Param("hide_tools", OPTIONAL_FLAG, None),
            edit=True,
        ),
        _op("delete_session", NOTHING, _ID, edit=True),
        _op("restore_session", BOOL, _ID, edit=True),
        _op("default_paths", Codec(lambda paths: [str(p) for p in paths], lambda paths: [Path(p) for p in paths])),
        _op(
            "index",
            REPORT,
            Param("paths", PATHS, None),
            Param("rebuild", FLAG, False),
            Param("semantic", FLAG, True),
            streams=True,
        ),
        _op("prune", INT, edit=True),
        _op("archive_status", ARCHIVE_STATUS),
        _op("export_archive", EXPORT_REPORT, Param("path", PATH)),
        _op("import_archive", IMPORT_REPORT, Param("path", PATH), edit=True),
    )
}

# Methods of the Engine that are not requests to a holder: closing, and who answers, are local.
LOCAL_ONLY = frozenset({"close", "served_by"})
