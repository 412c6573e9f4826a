"""One message as the card and the reader show it: label, text, thinking, tools."""

from __future__ import annotations

from collections.abc import Callable

from convo_tui.core.model import Message
from convo_tui.tui.render import format_date, highlighted
from convo_tui.tui.turns import aside_label
from convo_tui.tui.widgets.tool_call import ToolCallView
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

ROLE_LABEL = {"user": "👤 User", "assistant": "🤖 AI", "system": "⚙ System"}


class MessageBlock(Vertical):
    """`number` is the position among the turn's messages of that role; None for asides."""

    def __init__(
        self,
        message: Message,
        number: int | None,
        *,
        terms: list[str] | None = None,
        matched: bool = False,
        shown: Callable[[str], str] | None = None,
    ) -> None:
        classes = f"message -{message.role}"
        if matched:
            classes += " -matched"
        if number is None:
            classes += " -aside"
        super().__init__(classes=classes)
        self.message = message
        self.number = number
        self.terms = terms or []
        self.matched = matched
        self._shown = shown or (lambda text: text)

    def compose(self) -> ComposeResult:
        message = self.message
        label = Text()
        if self.number is not None:
            label.append(f"[{self.number}] ", style="bold")
        label.append(ROLE_LABEL.get(message.role, message.role), style="bold")
        if self.number is None:
            label.append(f"  ({aside_label(message)})", style="italic")
        if message.timestamp:
            label.append(f"  {format_date(message.timestamp)}", style="dim")
        if self.matched:
            label.append("  ◆ matched", style="bold")
        yield Static(label, classes="message-label")
        if message.thinking.strip():
            yield Static(Text("💭 " + self._shown(message.thinking.strip())), classes="thinking")
        if message.text.strip():
            yield Static(highlighted(self._shown(message.text.strip()), self.terms), classes="message-text")
        if message.attachment:
            yield Static(Text(f"📎 {message.attachment}"), classes="attachment")
        for tool in message.tools:
            yield ToolCallView(tool, reveal=self._shown)
