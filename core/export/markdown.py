"""A session as Markdown that GitHub renders well: a facts table, turns as headings,
thinking and tool calls folded in `<details>`, code fenced with a fence longer
than any run of backticks inside it (so a transcript's own fences never break out).
"""

from __future__ import annotations

import json
import re
from html import escape

from convo_tui.core.export.facts import SessionFacts, args_hint, aside, header_rows, when
from convo_tui.core.model import Message, Session, ToolCall

ROLE_HEADING = {"user": "👤 User", "assistant": "🤖 AI", "system": "⚙ System"}
_BACKTICKS = re.compile(r"`+")


def fenced(code: str, language: str = "") -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{code.rstrip()}\n{fence}"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|") or "—"


def facts_table(facts: SessionFacts) -> str:
    rows = header_rows(facts, code=lambda value: f"`{value}`")
    return "\n".join(["| | |", "|---|---|", *(f"| {name} | {_cell(value)} |" for name, value in rows)])


def details(summary: str, body: str) -> str:
    """A folded block; the blank lines let GitHub render the Markdown inside."""
    return f"<details>\n<summary>{summary}</summary>\n\n{body}\n\n</details>"


def tool_md(tool: ToolCall) -> str:
    body = []
    if tool.args:
        body.append(fenced(json.dumps(tool.args, ensure_ascii=False, indent=2), "json"))
    if tool.result:
        body += ["**Result**", fenced(tool.result)]
    hint = args_hint(tool.args)
    summary = f"🔧 <code>{escape(tool.name)}</code>" + (f" {escape(hint)}" if hint else "")
    return details(summary, "\n\n".join(body) or "_no arguments_")


def message_md(message: Message) -> str:
    heading = ROLE_HEADING.get(message.role, message.role)
    model = message.meta.get("model")
    if isinstance(model, str) and model:
        heading += f" · {model}"
    if kind := aside(message):
        heading += f" · {kind}"
    if message.timestamp:
        heading += f" · {when(message.timestamp)}"
    parts = [f"### {heading}"]
    if message.thinking.strip():
        parts.append(details("Thinking", message.thinking.strip()))
    if message.text.strip():
        parts.append(message.text.strip())
    parts += [tool_md(tool) for tool in message.tools]
    return "\n\n".join(parts)


def render_markdown(session: Session, facts: SessionFacts) -> str:
    """The document; `session` is already masked (core/export/facts.py)."""
    turns = {turn.index: turn for turn in session.turns}
    parts = [f"# {facts.title}", facts_table(facts)]
    for index, messages in session.turn_groups():
        if index is not None:
            stamp = turns[index].timestamp
            parts.append(f"## Turn {index}" + (f" · {when(stamp)}" if stamp else ""))
        parts += [message_md(message) for message in messages]
    parts.append("---\n\n_Exported by convo-tui. Secrets found in the text are masked._")
    return "\n\n".join(parts) + "\n"
