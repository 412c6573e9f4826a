"""`convo-tui show PATH [--json]`: read one transcript without any index and print it.

`print_sessions` is the reusable printer (the index-backed `show SESSION_ID`
calls it too). Human output is plain text, dimmed thinking only on a colour
terminal; `--json` prints one `core.serialize.session_to_json` object a line.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from convo_tui.cli import json_lines
from convo_tui.cli.common import add_store_options
from convo_tui.core.model import ASSISTANT, USER, Message, Session, ToolCall
from convo_tui.core.serialize import session_to_json
from convo_tui.core.sources import format_by_name, parse_path
from convo_tui.core.unicode import visible_controls

INDENT = "    "
VALUE_LIMIT = 60
TOOL_LIMIT = 120
_ROLE_LABELS = {USER: "👤 User", ASSISTANT: "🤖 AI", "system": "⚙ System"}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "show",
        help="print one transcript (file, thread folder or indexed session id), turn by turn",
        description="Print one transcript turn by turn: a file or thread folder (parsed directly, no index needed) or an indexed session id (read from the index, even after its file is gone).",
    )
    parser.add_argument("path", metavar="PATH", help="a transcript file, a chat thread folder, or a session id from the index")
    parser.add_argument("--json", action="store_true", help="one JSON object per session, one per line")
    parser.add_argument("--newest-first", action="store_true", help="list messages (and turns) newest first")
    add_store_options(parser, model=False)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not _is_path(args.path):
        # Not a path: a session id, read from the index (works after the file is gone).
        from convo_tui.cli.common import open_index
        from convo_tui.core.errors import AmbiguousSessionId, ConvoError, IndexBusy, IndexUnavailable
        from convo_tui.core.holder.client import HolderSilent

        try:
            with open_index(args, read_only=True) as library:
                session = library.session(args.path)
        except (IndexBusy, HolderSilent, AmbiguousSessionId):
            raise  # the index is there but cannot answer now, or the prefix names several: its own line says so
        except IndexUnavailable as exc:  # disk full, damaged: say that, not "no such session"
            if "no index at" not in str(exc):
                print(f"convo-tui: {exc}", file=sys.stderr)
                return 1
            print(f"convo-tui: {args.path}: no such file, folder or indexed session", file=sys.stderr)
            return 1
        except ConvoError:
            print(f"convo-tui: {args.path}: no such file, folder or indexed session", file=sys.stderr)
            return 1
        print_sessions(_ordered([session], args), as_json=args.json)
        return 0
    sessions = _ordered(parse_path(args.path), args)
    print_sessions(sessions, as_json=args.json)
    print_warnings(sessions)
    return 0


def _is_path(text: str) -> bool:
    """True when `text` names something on disk, even one we may not read (a locked folder)."""
    try:
        return os.path.lexists(text) or Path(text).exists()
    except OSError:
        return True  # it is there but refuses us: parse_path says why in one line


def newest_first(session: Session) -> Session:
    """A copy listing messages and turns newest first; turns keep their numbers."""
    return replace(session, messages=session.messages[::-1], _turns=session.turns[::-1])


def _ordered(sessions: list[Session], args: argparse.Namespace) -> list[Session]:
    return [newest_first(s) for s in sessions] if getattr(args, "newest_first", False) else sessions


def print_sessions(sessions: list[Session], as_json: bool, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    if as_json:
        for session in sessions:
            out.write(json_lines.dumps(session_to_json(session), separators=(",", ":"), default=str) + "\n")
        return
    style = _Style(out)
    for position, session in enumerate(sessions):
        if position:
            out.write("\n")
        out.write(render_session(session, style))


def print_warnings(sessions: list[Session], err: TextIO | None = None) -> None:
    """Problems the parser recovered from: one line each, after the output."""
    err = err or sys.stderr
    for session in sessions:
        for warning in session.warnings:
            err.write(f"convo-tui: warning: {visible_controls(warning)}\n")


class _Style:
    """Dim text on a colour terminal; nothing at all in pipes, files or NO_COLOR."""

    def __init__(self, out: TextIO):
        isatty = getattr(out, "isatty", lambda: False)
        self.colour = bool(isatty()) and not os.environ.get("NO_COLOR")

    def dim(self, text: str) -> str:
        return f"\x1b[2m{text}\x1b[0m" if self.colour else text

    def bold(self, text: str) -> str:
        return f"\x1b[1m{text}\x1b[0m" if self.colour else text


def when(stamp: datetime | None) -> str:
    return stamp.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC") if stamp else ""


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _value(value: Any) -> str:
    if isinstance(value, str):
        lines = value.strip().splitlines()
        shown = lines[0] if lines else ""
        if len(lines) > 1:
            shown += f" …(+{len(lines) - 1} lines)"
    else:
        shown = json_lines.dumps(value, default=str)
    return _clip(shown, VALUE_LIMIT)


RESULT_LINES = 10  # of a tool's output, under its call


def tool_line(tool: ToolCall) -> str:
    args = ", ".join(f"{key}={_value(value)}" for key, value in tool.args.items())
    return _clip(f"🔧 {tool.name}({args})", TOOL_LIMIT)


def _indented(text: str) -> list[str]:
    return [INDENT + line if line else "" for line in text.strip().splitlines()]


def _header(session: Session, style: _Style) -> list[str]:
    fmt = format_by_name(session.source)
    source = f"{fmt.label} ({session.source})" if fmt else session.source
    lines = [
        style.bold(visible_controls(session.title or session.id)),
        f"  id:      {visible_controls(session.id)}",  # names from files and transcripts: written out, not obeyed
        f"  project: {visible_controls(session.project or '-')}",
        f"  source:  {visible_controls(source)}",
        f"  path:    {visible_controls(session.path)}",
    ]
    machine = session.meta.get("machine")
    if isinstance(machine, str) and machine:  # read from another machine over SSH
        lines.append(f"  machine: {visible_controls(machine)}")
    if session.started_at:
        lines.append(f"  started: {when(session.started_at)}")
    if session.updated_at:
        lines.append(f"  updated: {when(session.updated_at)}")
    lines.append(f"  {_count(len(session.turns), 'turn')} · {_count(len(session.messages), 'message')}")
    return lines


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _message_lines(message: Message, style: _Style) -> list[str]:
    lines = [_ROLE_LABELS.get(message.role, message.role)]
    if message.thinking.strip():
        lines += [
            style.dim(f"{INDENT}💭 {line}" if i == 0 else f"{INDENT}   {line}")
            for i, line in enumerate(message.thinking.strip().splitlines())
        ]
    lines += _indented(message.text)
    if message.attachment:
        lines.append(f"{INDENT}📎 {message.attachment}")
    for tool in message.tools:
        lines.append(INDENT + tool_line(tool))
        head, more = tool.result_head(RESULT_LINES)
        lines += [style.dim(f"{INDENT}  ⇢ {line}" if i == 0 else f"{INDENT}    {line}") for i, line in enumerate(head)]
        if more:
            lines.append(style.dim(f"{INDENT}    … {more} more lines (all of them: show --json, export)"))
    return lines


def _aside_label(message: Message) -> str:
    if message.virtual:
        return "virtual message: shown to the user, never sent to the AI"
    if message.sidechain:
        return "sub-agent message"
    if message.error:
        return "API error"
    return "system message"


def render_session(session: Session, style: _Style | None = None) -> str:
    """The whole session as text: header, then each turn with its messages in order."""
    style = style or _Style(sys.stdout)
    turn_of = {mid: turn for turn in session.turns for mid in turn.message_ids}
    lines = _header(session, style)
    shown_turn = None
    for message in session.messages:
        turn = turn_of.get(message.id)
        if turn is None:
            stamp = f" · {when(message.timestamp)}" if message.timestamp else ""
            lines += ["", style.dim(f"·· {_aside_label(message)}{stamp}")]
            shown_turn = None
        elif turn is not shown_turn:
            stamp = f" · {when(turn.timestamp)}" if turn.timestamp else ""
            lines += ["", f"── Turn {turn.index}{stamp}"]
            shown_turn = turn
        lines += _message_lines(message, style)
    return "\n".join(lines) + "\n"
