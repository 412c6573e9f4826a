"""A turn or a whole session as Markdown, for the clipboard."""

from __future__ import annotations

from collections.abc import Callable

from convo_tui.core.model import Message, Session
from convo_tui.core.redact import display
from convo_tui.tui.render import args_full, format_date
from convo_tui.tui.turns import turn_parts

ROLE_HEADING = {"user": "User", "assistant": "AI", "system": "System"}


def _message_md(message: Message, number: int | None, shown: Callable[[str], str]) -> list[str]:
    label = ROLE_HEADING.get(message.role, message.role)
    heading = f"**{label} [{number}]**" if number is not None else f"**{label}**"
    lines = [heading, "", shown(message.text.strip()), ""]
    for tool in message.tools:
        lines += [f"Tool call `{tool.name}`:", "", "```", shown(args_full(tool.args)), "```", ""]
    return lines


def _header(session: Session) -> list[str]:
    """Enough to find the conversation again: the whole title, where, when, the file and the id."""
    title = " ".join((display(session.title) or "(untitled)").split())
    lines = [
        f"# {title}",
        "",
        f"- Project: {session.project or '—'}",
        f"- Source: {session.source}",
        f"- Date: {format_date(session.started_at)}",
        f"- Path: `{session.path}`",
        f"- Session id: `{session.id}`",
    ]
    if session.cwd:
        lines.append(f"- Folder: `{session.cwd}`")
    return [*lines, ""]


def turn_markdown(
    session: Session, turn_index: int, message_ids: list[str] | None = None, shown: Callable[[str], str] = lambda text: text
) -> str:
    parts = turn_parts(session, turn_index, message_ids)
    lines = [*_header(session), f"## Turn {turn_index}", ""]
    for number, message in enumerate(parts.users):
        lines += _message_md(message, number, shown)
    for number, message in enumerate(parts.ais):
        lines += _message_md(message, number, shown)
    return "\n".join(lines).rstrip() + "\n"


def session_markdown(session: Session, shown: Callable[[str], str] = lambda text: text) -> str:
    lines = _header(session)
    for turn in session.turns:
        lines += [f"## Turn {turn.index}", ""]
        parts = turn_parts(session, turn.index)
        for number, message in enumerate(parts.users):
            lines += _message_md(message, number, shown)
        for number, message in enumerate(parts.ais):
            lines += _message_md(message, number, shown)
    return "\n".join(lines).rstrip() + "\n"
