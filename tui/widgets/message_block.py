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

MATCH_STYLE = "reverse"  # how a query term is marked (render.highlighted's default)
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
        self._text: Text | None = None  # the message text as drawn, terms marked
        self.text_widget: Static | None = None

    def first_match_line(self) -> int | None:
        """The row, within the text widget, of the first line where a query term is marked."""
        if self._text is None or self.text_widget is None or not self._text.spans:
            return None
        width = self.text_widget.content_region.width or self.text_widget.size.width
        if width <= 0:
            return None
        for row, line in enumerate(self._text.wrap(self.app.console, width)):
            if any(span.style == MATCH_STYLE for span in line.spans):
                return row
        return None

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
            self._text = highlighted(self._shown(message.text.strip()), self.terms, MATCH_STYLE)
            self.text_widget = Static(self._text, classes="message-text")
            yield self.text_widget
        if message.attachment:
            yield Static(Text(f"📎 {message.attachment}"), classes="attachment")
        for tool in message.tools:
            yield ToolCallView(tool, reveal=self._shown, terms=self.terms)
