"""What every export format says about a session, and the session with its secrets masked."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from convo_tui.core.annotations import tags_line
from convo_tui.core.cost.prices import PriceTable
from convo_tui.core.cost.pricing import Cost, format_usd, price_models
from convo_tui.core.cost.usage import Usage, session_usage
from convo_tui.core.model import Message, Session, ToolCall
from convo_tui.core.sources import format_by_name
from convo_tui.core.unicode import visible_controls


def tool_name(source: str) -> str:
    """What the user calls the tool a session came from: the reader's own `FORMAT.tool`."""
    fmt = format_by_name(source) if source else None
    return fmt.tool if fmt is not None and fmt.tool else (source or "?")


@dataclass(frozen=True)
class SessionFacts:
    """The header of an export: what, where, when, which models, how many tokens, what cost."""

    title: str
    tool: str
    project: str
    models: list[str]
    started: str
    updated: str
    turns: int
    messages: int
    usage: Usage | None
    cost: Cost | None
    session_id: str
    path: str
    cwd: str | None
    tags: tuple[str, ...] = ()  # the user's own (annotations), as they gave them
    description: str = ""  # the user's own line about the session


def when(stamp: datetime | None) -> str:
    """UTC, so a shared page reads the same in every zone."""
    return stamp.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC") if stamp else "—"


# A page's heading has room for a whole first question (a card's title is cut at 80).
PAGE_TITLE_LIMIT = 300


def whole_title(session: Session) -> str:
    """The title, one line; a title cut from the first question ("How do we …") is
    that question's whole first line again (up to PAGE_TITLE_LIMIT), for the page."""
    title = " ".join(session.title.split())
    if not title.endswith("…"):
        return title
    start = title.removesuffix("…").rstrip()
    for message in session.messages:
        if message.role == "user" and message.is_conversation:
            line = next((" ".join(line.split()) for line in message.text.splitlines() if line.strip()), "")
            if line.startswith(start) and len(line) > len(start):
                return line if len(line) <= PAGE_TITLE_LIMIT else line[: PAGE_TITLE_LIMIT - 1].rstrip() + "…"
            break
    return title


def session_facts(session: Session, table: PriceTable, *, tags: tuple[str, ...] = (), description: str = "") -> SessionFacts:
    """`tags` and `description`: what the user said of the session (already masked)."""
    models_usage = session_usage(session)
    usage = Usage()
    for one in models_usage.values():
        usage.add(one)
    named = {str(m.meta["model"]) for m in session.messages if isinstance(m.meta.get("model"), str) and m.meta["model"]}
    if isinstance(session.meta.get("model"), str) and session.meta["model"]:
        named.add(session.meta["model"])
    return SessionFacts(
        title=whole_title(session) or "(untitled)",
        tool=tool_name(session.source),
        project=visible_controls(session.project) or "—",  # names: spelled out, as the CLI prints them
        models=sorted(visible_controls(name) for name in named),
        started=when(session.started_at),
        updated=when(session.updated_at),
        turns=len(session.turns),
        messages=sum(1 for m in session.messages if m.is_conversation),
        usage=usage if models_usage else None,
        cost=price_models(models_usage, table) if models_usage else None,
        session_id=visible_controls(session.id),
        path=visible_controls(session.path),
        cwd=visible_controls(session.cwd) if session.cwd else session.cwd,
        tags=tuple(visible_controls(" ".join(tag.split())) for tag in tags),
        description=visible_controls(" ".join(description.split())),
    )


def _masked_value(value: Any, shown: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, dict):
        return {key: _masked_value(item, shown) for key, item in value.items()}
    if isinstance(value, list):
        return [_masked_value(item, shown) for item in value]
    return value


def _masked_message(message: Message, shown: Callable[[str], str]) -> Message:
    tools = [ToolCall(t.name, _masked_value(t.args, shown), shown(t.result)) for t in message.tools]
    return replace(message, text=shown(message.text), thinking=shown(message.thinking), tools=tools)


def masked_session(session: Session, shown: Callable[[str], str]) -> Session:
    """A copy with every text a reader sees passed through `shown` (titles, messages, thinking,
    tool arguments and results); ids, times and usage stay as they are."""
    return replace(
        session,
        title=shown(session.title),
        messages=[_masked_message(m, shown) for m in session.messages],
        _turns=None,
    )


def aside(message: Message) -> str:
    """What a message outside the conversation is, or "" for one of the conversation."""
    if message.virtual:
        return "shown to the user, not sent to the AI"
    if message.sidechain:
        return "sub-agent"
    if message.error:
        return "error"
    return ""


def tokens_line(usage: Usage) -> str:
    parts = [f"{usage.prompt:,} in", f"{usage.output:,} out"]
    cached = [
        f"{n:,} {label}"
        for n, label in ((usage.cache_read, "cache read"), (usage.cache_write + usage.cache_write_1h, "cache write"))
        if n
    ]
    return " / ".join(parts) + (f" ({', '.join(cached)})" if cached else "")


def header_rows(facts: SessionFacts, code: Callable[[str], str] = str) -> list[tuple[str, str]]:
    """The page header of an export, (name, value) in order, the same for every
    format; `code` marks the values that are identifiers (Markdown's backticks)."""
    rows = [("Description", facts.description)] if facts.description else []
    if facts.tags:
        rows.append(("Tags", tags_line(facts.tags)))
    rows += [
        ("Tool", facts.tool),
        ("Project", facts.project),
        ("Model", ", ".join(facts.models) or "—"),
        ("Started", facts.started),
        ("Updated", facts.updated),
        ("Turns", f"{facts.turns} turns · {facts.messages} messages"),
        ("Tokens", tokens_line(facts.usage) if facts.usage else "not recorded by this tool"),
    ]
    if facts.cost is not None:
        rows.append(("Cost", cost_line(facts.cost) or "—"))
    rows += [
        ("Session id", code(facts.session_id)),
        ("Folder", code(facts.cwd) if facts.cwd else "—"),
        ("Source file", code(facts.path)),
    ]
    return rows


def cost_line(cost: Cost) -> str:
    text = format_usd(cost.pico) if cost.pico else ""
    if cost.unpriced:
        named = ", ".join(f"{model} {tokens:,} tokens" for model, tokens in sorted(cost.unpriced.items()))
        text = f"{text} + not priced: {named}" if text else f"not priced: {named}"
    return text


def args_hint(args: dict[str, object], limit: int = 80) -> str:
    """A one-line look at the call: its first argument's value."""
    for value in args.values():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        line = " ".join(shown.split())
        return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""
