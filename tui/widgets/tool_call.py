"""One tool call: a single line, or a collapsible block when its arguments are long."""

from __future__ import annotations

from convo_tui.core.model import ToolCall
from convo_tui.tui.render import args_are_long, args_full, tool_title
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Collapsible, Static


class ToolCallView(Widget):
    """Arguments clipped to one line; the full text one keypress away."""

    def __init__(self, tool: ToolCall, *, collapsed: bool = True, reveal=None) -> None:
        super().__init__(classes="tool-call")
        self.tool = tool
        self.collapsed = collapsed
        self._shown = reveal or (lambda text: text)

    def compose(self) -> ComposeResult:
        title = tool_title(self.tool, shown=self._shown)  # masked before it is cut
        if args_are_long(self.tool.args):
            with Collapsible(title=title, collapsed=self.collapsed):
                yield Static(self._shown(args_full(self.tool.args)), classes="tool-args", markup=False)
        else:
            yield Static(title, classes="tool-line", markup=False)
