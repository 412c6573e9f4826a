"""A tool call's output in the app: one keypress away, and open at once when the
query's words are in it (a card said "tool output: …" matched, and expanding it
showed the call's arguments alone)."""

from __future__ import annotations

from convo_tui.core.model import ToolCall
from convo_tui.tui.widgets.tool_call import RESULT_LINES, ToolCallView
from textual.app import App, ComposeResult
from textual.widgets import Collapsible, Static

from tests.helpers.app import run_async

RUN = ToolCall("Bash", {"command": "pytest -q"}, "\n".join(f"line {n}" for n in range(RESULT_LINES + 5)) + "\n3 failed")


class One(App):
    def __init__(self, view: ToolCallView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield self.view


async def _shown(view: ToolCallView) -> tuple[Collapsible, str]:
    app = One(view)
    async with app.run_test(size=(100, 60)) as pilot:
        await pilot.pause()
        block = app.query_one(Collapsible)
        return block, str(app.query_one(".tool-result", Static).render())


@run_async
async def test_an_output_the_query_matched_is_open_and_others_are_folded():
    block, output = await _shown(ToolCallView(RUN, terms=["failed"]))  # on the last of 46 lines
    assert not block.collapsed
    assert "46 lines of output" in str(block.title)
    assert output.startswith(f"… {45 - 5} lines before\nline 40\n") and output.endswith("line 44\n3 failed")
    folded, start = await _shown(ToolCallView(RUN, terms=["qdrant"]))
    assert folded.collapsed
    assert start.startswith("line 0\nline 1") and start.endswith(f"line {RESULT_LINES - 1}\n… 6 more lines")


@run_async
async def test_a_call_without_output_or_long_arguments_is_one_line():
    app = One(ToolCallView(ToolCall("Read", {"path": "a.py"})))
    async with app.run_test(size=(100, 10)) as pilot:
        await pilot.pause()
        assert not app.query(Collapsible) and app.query_one(".tool-line", Static)
