"""Query strings with GitHub-style filters -> words to search + store filters.

`project:NAME session:ID role:user|ai tool:NAME has:tools source:NAME
machine:NAME tag:NAME after:DATE before:DATE` and "quoted phrases" (must appear
verbatim, case-insensitive). Values may be quoted: `project:"my app"`.
A DATE is YYYY-MM-DD, `today`, `yesterday`, or a count of days, weeks,
months (30 days) or years back: `7d`, `2w`, `3m`, `1y`; each means the local
midnight that starts that day (`after:7d` = the last seven days and today).
Dates clamp to 1970-01-01 .. 9999-12-30 (`after:99999y` is "since 1970").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from convo_tui.core.errors import QueryError
from convo_tui.core.store.base import Cond, Filter
from convo_tui.core.unicode import without_lone_surrogates

if TYPE_CHECKING:
    from convo_tui.core.engine import Engine

KEYS = ("project", "session", "role", "tool", "has", "source", "machine", "tag", "after", "before")
ROLES = {"user": "user", "ai": "ai", "assistant": "ai"}

_TOKEN = re.compile(r'(?P<key>[A-Za-z_]+):(?:"(?P<qval>[^"]*)"|(?P<val>\S*))|"(?P<phrase>[^"]*)"|(?P<word>\S+)')


@dataclass
class ParsedQuery:
    text: str  # what gets embedded / matched by BM25 (phrases included)
    phrases: list[str] = field(default_factory=list)
    project: str | None = None
    session: str | None = None
    role: str | None = None  # "user" | "ai"
    tool: str | None = None
    has_tools: bool = False
    source: str | None = None
    machine: str | None = None  # a remote machine's name (core/remote/)
    tag: str | None = None  # a tag the user gave sessions (the annotations, not the index)
    tagged: tuple[str, ...] | None = None  # the sessions that have it, once the search looked (`tag`)
    after: float | None = None  # epoch seconds, inclusive
    before: float | None = None  # epoch seconds, exclusive (start of that day)

    @property
    def has_filters(self) -> bool:
        # Dates by `is not None`: `after:99999y` is the epoch, 0.0, and a filter all the same.
        dated = self.after is not None or self.before is not None
        return dated or any(
            value not in (None, False)
            for value in (
                self.project,
                self.session,
                self.role,
                self.tool,
                self.has_tools,
                self.source,
                self.machine,
                self.tag,
            )
        )

    def store_filter(self) -> Filter:
        """Conditions for every level (role narrows to messages; see search)."""
        must = [Cond("visible", value=True)]
        if self.project:
            must.append(Cond("project", value=self.project))
        if self.session:
            must.append(Cond("session_id", value=self.session))
        if self.source:
            must.append(Cond("source", value=self.source))
        if self.machine:
            must.append(Cond("machine", value=self.machine))
        if self.tag:
            # The sessions the search found with it (none looked up: none); when no session
            # has it, an id no session has (an empty `any` would be no condition at all).
            must.append(Cond("session_id", any=self.tagged or ("",)))
        if self.tool:
            must.append(Cond("tool_keys", value=self.tool.lower()))
        if self.has_tools:
            must.append(Cond("has_tools", value=True))
        if self.role:
            must.append(Cond("role", value=self.role))
        if self.after is not None or self.before is not None:
            # Range bounds are inclusive; `before` excludes its own day.
            lte = self.before - 0.001 if self.before is not None else None
            must.append(Cond("timestamp", gte=self.after, lte=lte))
        return Filter(must=tuple(must))

    def matches_phrases(self, *texts: str) -> bool:
        haystack = "\n".join(texts).casefold()
        return all(phrase.casefold() in haystack for phrase in self.phrases)


_RELATIVE = re.compile(r"(?P<count>\d{1,5})(?P<unit>[dwmy])")
_UNIT_DAYS = {"d": 1, "w": 7, "m": 30, "y": 365}
_NAMED_DAYS = {"today": 0, "yesterday": 1}
# Dates clamp to this range: `after:99999y` means "since the earliest day", and
# every day of it converts to a timestamp in any time zone (year 1 does not).
EARLIEST = datetime(1970, 1, 1)
LATEST = datetime(9999, 12, 30)


def _date(key: str, value: str, now: datetime | None = None) -> float:
    lowered = value.lower()
    relative = _RELATIVE.fullmatch(lowered)
    if relative or lowered in _NAMED_DAYS:
        days = _NAMED_DAYS[lowered] if not relative else int(relative["count"]) * _UNIT_DAYS[relative["unit"]]
        today = (now or datetime.now()).astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
        # Calendar days back, then that day's local midnight (DST-safe); no further back than EARLIEST.
        days = min(days, max(0, (today.replace(tzinfo=None) - EARLIEST).days))
        start = (today - timedelta(days=days)).replace(tzinfo=None)
        return _midnight(start)
    try:
        day = datetime.strptime(value, "%Y-%m-%d")
    except ValueError:
        raise QueryError(
            f"{key}:{value} is not a date (use {key}:YYYY-MM-DD, {key}:today, {key}:yesterday or {key}:7d, 2w, 3m, 1y)"
        ) from None
    # Local midnight, as the user reads dates.
    return _midnight(day)


def _midnight(day: datetime) -> float:
    """Epoch seconds of a day's local midnight, the day clamped to EARLIEST..LATEST."""
    return min(max(day, EARLIEST), LATEST).astimezone().timestamp()


def parse_query(query: str, *, now: datetime | None = None) -> ParsedQuery:
    """Words, phrases and filters of a query; `now` anchors relative dates (tests).
    A lone surrogate (a byte of the command line that is not UTF-8, a "\\ud800" in an
    MCP or served request) separates words: no model can read it, and a search of it
    ended in a traceback."""
    query, _ = without_lone_surrogates(query, " ")
    if query.count('"') % 2:
        raise QueryError('unbalanced quote in query (a phrase needs a closing ")')
    parsed = ParsedQuery(text="")
    words: list[str] = []
    for match in _TOKEN.finditer(query):
        if match.group("phrase") is not None:
            phrase = match.group("phrase").strip()
            if phrase:
                parsed.phrases.append(phrase)
                words.append(phrase)
            continue
        if match.group("word") is not None:
            words.append(match.group("word"))
            continue
        key = match.group("key").lower()
        value = match.group("qval") if match.group("qval") is not None else match.group("val")
        if key not in KEYS:
            if _unknown_filter(key, value):
                raise QueryError(
                    f"unknown filter {key}: (filters are {', '.join(k + ':' for k in KEYS)}); "
                    f'write "{match.group(0)}" in quotes to search for it as words'
                )
            # Not a filter (a URL, a port, "C:\\", "std::"): keep it as words.
            words.append(match.group(0))
            continue
        value = value.strip()
        if not value:
            raise QueryError(f"{key}: needs a value (e.g. {_example(key)})")
        _apply(parsed, key, value, now)
    parsed.text = " ".join(words).strip()
    if parsed.after is not None and parsed.before is not None and parsed.after >= parsed.before:
        raise QueryError("after: must be earlier than before:")
    if parsed.role == "user" and (parsed.has_tools or parsed.tool):
        used = "has:tools" if parsed.has_tools else f"tool:{parsed.tool}"
        raise QueryError(f"role:user and {used} never meet: tools are called by the AI (use role:ai, or leave role: out)")
    return parsed


def _unknown_filter(key: str, value: str) -> bool:
    """`foo:bar` reads as a mistyped filter; URLs (`https://`), drive letters,
    `std::x`, `host:8080` and `key:` with nothing after it read as words."""
    return len(key) > 1 and bool(value) and value[0] not in "/\\:" and not value[0].isdigit()


def _apply(parsed: ParsedQuery, key: str, value: str, now: datetime | None = None) -> None:
    if key == "role":
        role = ROLES.get(value.lower())
        if role is None:
            raise QueryError(f"role:{value} is not a role (use role:user or role:ai)")
        parsed.role = role
    elif key == "has":
        if value.lower() not in ("tools", "tool"):
            raise QueryError(f"has:{value} is not supported (use has:tools)")
        parsed.has_tools = True
    elif key == "after":
        parsed.after = _date(key, value, now)
    elif key == "before":
        parsed.before = _date(key, value, now)
    else:
        setattr(parsed, key, value)


def _example(key: str) -> str:
    return {
        "project": "project:myapp",
        "session": "session:1234abcd",
        "role": "role:user",
        "tool": "tool:Shell",
        "has": "has:tools",
        "source": "source:cursor",
        "machine": "machine:devbox",
        "tag": "tag:release",
        "after": "after:2026-01-01",
        "before": "before:2026-02-01",
    }[key]


def session_filter(session_id: str) -> str:
    """`session:ID` for a query string (quoted: ids may hold spaces)."""
    if '"' in session_id:
        raise QueryError(f"session id {session_id!r} contains a quote and cannot be used as a search filter")
    return f'session:"{session_id}"'


def filter_tokens(query: str) -> list[str]:
    """The query's filters as the user wrote them, one each (`tag:"two words"` whole)."""
    return [match.group(0) for match in _TOKEN.finditer(query) if match.group("key") and match.group("key").lower() in KEYS]


def filters_only(query: str) -> str:
    """The query's filters alone, as query text (words and phrases left out): what
    a face searches to tell "these filters match nothing" from "no words matched"."""
    return " ".join(filter_tokens(query))


def filters_match(library: Engine, query: str) -> bool | None:
    """Whether the query's filters alone match any conversation (None: it has none,
    or the query is not one): asked once a search found nothing, to tell "these
    filters match nothing" from "no words matched" (the app's note, the CLI's line)."""
    try:
        parsed = parse_query(query)
    except QueryError:
        return None
    if not parsed.has_filters:
        return None
    if not parsed.text and not parsed.phrases:
        return False  # the search was the filters alone, and it found nothing
    return bool(library.search(filters_only(query), limit=1, mode="keyword"))


def unknown_source(query: str) -> str | None:
    """Why the query's `source:` matched nothing when it names no source convo-tui
    reads (None: it names one, or the query has none). Asked only once a search
    has found nothing: it loads every reader to know their names."""
    import difflib

    from convo_tui.core.sources import formats

    try:
        source = parse_query(query).source
    except QueryError:
        return None
    if not source:
        return None
    names = sorted(f.name for f in formats())
    if source in names:
        return None
    close = ([n for n in names if source.lower() in n] or difflib.get_close_matches(source.lower(), names, n=4))[:4]
    hint = f"did you mean {' or '.join('source:' + n for n in close)}?" if close else f"the sources are {', '.join(names)}"
    return f"source:{source} is no source convo-tui reads: {hint}"


def near_names(name: str, names: Iterable[str]) -> list[str]:
    """Names (of projects, machines) `name` may have meant (none when it is one): the
    same name in other case first, then names holding it, then close spellings; at
    most four."""
    import difflib

    known = sorted(set(names))
    if name in known:
        return []
    folded = name.casefold()
    same = [p for p in known if p.casefold() == folded]
    holding = [p for p in known if folded in p.casefold() and p not in same]
    close = difflib.get_close_matches(name, known, n=4, cutoff=0.6)
    return list(dict.fromkeys([*same, *holding, *close]))[:4]


def unknown_project(query: str, projects: Iterable[str]) -> str | None:
    """Why the query's `project:` matched nothing when it names no indexed project
    (None: it names one, or the query has none). Project names are compared as
    they are (`project:Infra` is not `infra`): this says which was meant."""
    try:
        project = parse_query(query).project
    except QueryError:
        return None
    if not project:
        return None
    known = list(projects)
    if project in known:
        return None
    near = near_names(project, known)
    hint = f"did you mean {' or '.join('project:' + p for p in near)}?" if near else "F3 or `convo-tui sessions` lists them"
    return f"project:{project} is no indexed project: {hint}"


def unknown_machine(query: str, machines: Iterable[str]) -> str | None:
    """Why the query's `machine:` matched nothing when it names no machine in the
    settings' `[[remotes]]` (None: it names one, or the query has none)."""
    try:
        machine = parse_query(query).machine
    except QueryError:
        return None
    if not machine:
        return None
    known = sorted(set(machines))
    if machine in known:
        return None
    near = near_names(machine, known)
    if near:
        hint = f"did you mean {' or '.join('machine:' + m for m in near)}?"
    elif known:
        hint = f"the machines are {', '.join(known)}"
    else:
        hint = "no other machine is set up ([[remotes]] in the settings)"
    return f"machine:{machine} is no machine convo-tui pulls from: {hint}"


def unknown_tag(query: str, tags: Iterable[str]) -> str | None:
    """Why the query's `tag:` matched nothing when no session has that tag (None: one
    has, in any case, or the query has none): the tags it may have meant."""
    try:
        tag = parse_query(query).tag
    except QueryError:
        return None
    if not tag:
        return None
    from convo_tui.core.annotations import tag_key  # asked once a search found nothing: not at every start

    wanted = tag_key(tag)
    folded = {tag_key(name): name for name in tags}
    if wanted in folded:
        return None
    known = list(folded.values())
    near = [folded[name] for name in near_names(wanted, folded)]
    if near:
        hint = f"did you mean {' or '.join('tag:' + _quoted(name) for name in near)}?"
    elif known:
        hint = "# in the sessions browser or the reader tags a session"
    else:
        hint = "no session is tagged yet (# in the sessions browser or the reader, or `convo-tui session tag`)"
    return f"tag:{_quoted(tag)} is no tag of any session: {hint}"


def _quoted(value: str) -> str:
    return f'"{value}"' if any(ch.isspace() for ch in value) else value
