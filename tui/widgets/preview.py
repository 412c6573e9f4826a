"""The compact list's preview pane: the current result's question and answer, the matched part first."""

from __future__ import annotations

from collections.abc import Callable

from convo_tui.core.hits import Hit
from convo_tui.core.search.snippets import snippet
from convo_tui.tui.render import format_date, highlighted
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

PREVIEW_CELLS = 900  # about a screenful of the pane: the part of each message that matched


def preview_text(hit: Hit, terms: list[str], shown: Callable[[str], str]) -> Text:
    text = Text()
    text.append(hit.session_title or "(untitled)", style="bold")
    where = f"{hit.source} on {hit.machine}" if hit.machine else hit.source
    text.append(f"\n{hit.project or '—'} · {where} · {format_date(hit.timestamp)} · turn {hit.turn_index}\n", style="dim")
    for icon, body in (("👤", hit.user_text), ("🤖", hit.ai_text)):
        if body.strip():
            text.append(f"\n{icon} ")
            text.append_text(highlighted(snippet(shown(body), terms, PREVIEW_CELLS), terms))
            text.append("\n")
    if hit.tools:
        text.append("\n🔧 " + ", ".join(dict.fromkeys(hit.tools)) + "\n", style="dim")
    return text


class HitPreview(VerticalScroll, can_focus=False):
    def compose(self) -> ComposeResult:
        yield Static(id="preview-text")

    def show(self, hit: Hit | None, terms: list[str], shown: Callable[[str], str]) -> None:
        body = self.query_one("#preview-text", Static)
        body.update(preview_text(hit, terms, shown) if hit is not None else "")
        self.scroll_home(animate=False)
