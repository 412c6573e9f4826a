"""One tool call: a single line, or a collapsible block when its arguments are
long or it has an output (opened at once when the query's words are in it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from convo_tui.core.model import ToolCall
from convo_tui.core.search.highlight import match_spans
from convo_tui.tui.render import args_are_long, args_full, highlighted, tool_title
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Collapsible, Static

RESULT_LINES = 40
"""Lines of a tool's output shown (the rest: `convo-tui export`, `show --json`)."""
CONTEXT_LINES = 5  # shown before the first line the query matched, when it is further down


class ToolCallView(Widget):
    """Arguments clipped to one line; the full text and the output one keypress away."""

    def __init__(
        self,
        tool: ToolCall,
        *,
        collapsed: bool = True,
        reveal: Callable[[str], str] | None = None,
        terms: Sequence[str] = (),
    ) -> None:
        super().__init__(classes="tool-call")
        self.tool = tool
        self.collapsed = collapsed
        self.terms = list(terms)
        self._shown = reveal or (lambda text: text)

    def compose(self) -> ComposeResult:
        title = tool_title(self.tool, shown=self._shown)  # masked before it is cut
        lines = self._shown(self.tool.result.strip("\n")).splitlines()
        long_args = args_are_long(self.tool.args)
        if not long_args and not lines:
            yield Static(title, classes="tool-line", markup=False)
            return
        if lines:  # before the arguments: a title cut at 80 columns lost the count, never the call's name
            name = f"🔧 {self.tool.name}"
            count = f"{name} ⇢ {len(lines)} line{'s' * (len(lines) != 1)} of output · "
            title = title.replace(name, count, 1) if title.startswith(name) else f"{title}  {count}"
        matched = next((at for at, line in enumerate(lines) if self.terms and match_spans(line, self.terms)), None)
        with Collapsible(title=title, collapsed=self.collapsed and matched is None):
            if long_args:
                yield Static(self._shown(args_full(self.tool.args)), classes="tool-args", markup=False)
            if lines:
                yield Static(highlighted(output_window(lines, matched), self.terms), classes="tool-result")


def output_window(lines: list[str], matched: int | None) -> str:
    """RESULT_LINES of an output: its start, or a few lines before the first line the
    query matched when that is further down; what is left out is said."""
    start = 0 if matched is None or matched < RESULT_LINES else matched - CONTEXT_LINES
    shown = lines[start : start + RESULT_LINES]
    after = len(lines) - start - len(shown)
    before_note = [f"… {start} lines before"] if start else []
    after_note = [f"… {after} more lines"] if after else []
    return "\n".join([*before_note, *shown, *after_note])
