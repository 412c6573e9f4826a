"""A whole session turn by turn, for the reader."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from convo_tui.core.annotations import tags_line
from convo_tui.core.model import Session
from convo_tui.core.redact import display
from convo_tui.tui.render import format_date, plural
from convo_tui.tui.turns import turn_of_message
from convo_tui.tui.widgets.message_block import MessageBlock
from rich.text import Text
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static


class TurnView(Vertical):
    """One turn; `index` is None for messages before the first turn."""

    def __init__(self, index: int | None, *children) -> None:
        super().__init__(
            *children, classes="turn" if index is not None else "turn -lead", id=f"turn-{index}" if index is not None else None
        )
        self.index = index


def short_path(path: str) -> str:
    """The file and its folder: enough to recognise it, the same on every machine."""
    parts = Path(path).parts
    return str(Path(*parts[-2:])) if len(parts) > 2 else path


def session_head(
    session: Session,
    *,
    starred: bool = False,
    masked: int = 0,
    cost: str = "",
    position: str = "",
    width: int = 0,
    tags: Sequence[str] = (),
    description: str = "",
) -> Text:
    """`width` (the head's columns, 0: unknown): the title is cut so that `position`
    stays whole on its line (at 80 columns "hit 1/5 · n/N" broke after "hit")."""
    head = Text()
    if starred:
        head.append("★ ", style="bold")
    title = Text(display(session.title) or "(untitled)", style="bold")
    if position and width:
        room = width - head.cell_len - len(position) - 3
        if title.cell_len > room > 0:
            title.truncate(room, overflow="ellipsis")
    head.append_text(title)
    if position:  # where n/N stands among the query's hits
        head.append(f"   {position}")
    head.append(f"\n{session.project or '—'} · {session.source} · {format_date(session.started_at or session.updated_at)}")
    if session.started_at and session.updated_at and session.updated_at != session.started_at:
        start, end = format_date(session.started_at), format_date(session.updated_at)
        same_day = start.split(" ")[0] == end.split(" ")[0]
        head.append(f" → {end.split(' ', 1)[-1] if same_day else end}")  # the day once: the line fits 80 columns
    spoken = sum(1 for m in session.messages if m.is_conversation)
    head.append(f" · {plural(len(session.turns), 'turn')} · {plural(spoken, 'message')}", style="dim")
    if cost:  # what the tool recorded, priced (tui/render.py session_cost)
        head.append(f" · {cost}", style="dim")
    if tags or description.strip():  # what the user said of the session (`convo-tui session tag / describe`)
        said = tags_line(tags)
        head.append(f"\n{said}{' · ' if said and description.strip() else ''}{display(description)}", style="italic")
    if masked:  # a line of its own: beside the path it wraps mid-phrase at 80 columns
        head.append(f"\n🔒 {plural(masked, 'secret')} masked · v reveals one", style="italic")
    head.append(f"\n{short_path(session.path)}", style="dim")
    return head


def build_turn_views(
    session: Session, terms: list[str], shown: Callable[[str], str], groups: slice = slice(None)
) -> list[TurnView]:
    """The views of the session's turn groups (`groups` of them: the reader mounts a window)."""
    owner = turn_of_message(session)
    turns = {t.index: t for t in session.turns}
    views = []
    for index, messages in session.turn_groups()[groups]:
        children: list[Widget] = []
        if index is not None:
            title = Text(f"Turn {index}", style="bold")
            if turns[index].timestamp:
                title.append(f"  {format_date(turns[index].timestamp)}", style="dim")
            children.append(Static(title, classes="turn-title"))
        numbers: dict[str, int] = {}
        for message in messages:
            if owner.get(message.id) is None:
                children.append(MessageBlock(message, None, terms=terms, shown=shown))
                continue
            number = numbers.get(message.role, 0)
            numbers[message.role] = number + 1
            children.append(MessageBlock(message, number, terms=terms, shown=shown))
        views.append(TurnView(index, *children))
    return views
