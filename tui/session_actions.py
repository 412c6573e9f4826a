"""The session actions every screen offers, by the same keys and in the palette:
open, resume, copy the id, copy as Markdown, export the LLM context, save a page
to share, open the source in the editor, star, rename and delete from the index.

A screen says which session its keys act on (`session_target`): the search
screen's current card, the sessions list's highlighted row, the reader's
session. The keys never type (ctrl+letter), so they mean the same on the
search screen, where every printable key goes into the query, as elsewhere.
Every action reports problems with notify(), never raises.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from convo_tui.core.annotations import normalize_tags, tags_line
from convo_tui.core.errors import ConvoError
from convo_tui.core.model import Session
from convo_tui.core.redact import display
from convo_tui.tui import handoff
from convo_tui.tui.dialogs import ConfirmScreen, PromptScreen
from convo_tui.tui.markdown import session_markdown, turn_markdown
from convo_tui.tui.messages import OpenReader
from convo_tui.tui.session_messages import SessionEdited
from textual import work
from textual.binding import Binding, BindingType

if TYPE_CHECKING:
    from convo_tui.core.hits import Hit
    from convo_tui.tui.app import ConvoApp

# One id per action on every screen: `[keys] "session.resume" = "f9"` remaps it everywhere.
SESSION_BINDINGS: list[BindingType] = [
    Binding("ctrl+o", "open", "Open", priority=True, id="session.open"),
    Binding("ctrl+y", "copy", "Copy", show=False, priority=True, id="session.copy"),
    Binding("ctrl+r", "resume", "Resume", show=False, priority=True, id="session.resume"),
    Binding("ctrl+g", "copy_id", "Copy id", show=False, priority=True, id="session.copy_id"),
    Binding("ctrl+x", "export", "Export", show=False, priority=True, id="session.export"),
    Binding("ctrl+s", "export_page", "Save page", show=False, priority=True, id="session.export_page"),
    Binding("ctrl+t", "edit", "Editor", show=False, priority=True, id="session.edit"),
    Binding("ctrl+b", "star", "Star", show=False, priority=True, id="session.star"),
    Binding("ctrl+l", "rename", "Rename", show=False, priority=True, id="session.rename"),
]


@dataclass
class SessionTarget:
    """The session a screen's keys act on, with what the screen already knows of it."""

    session_id: str
    title: str = ""
    path: str = ""
    turn_index: int | None = None  # where the reader opens
    starred: bool | None = None  # None: read it from the index before toggling
    session: Session | None = None  # already read (the reader's)
    hit: Hit | None = None  # a search result: copying takes its turn


class SessionActions:
    """Mixed into a Screen that implements `session_target` (and `current_query` when it has one)."""

    app: ConvoApp
    NO_TARGET = "No session to act on"
    # Actions that make no sense on the screen (the reader does not open itself): not in the palette.
    OFFERS_NOT: frozenset[str] = frozenset()

    def session_target(self) -> SessionTarget | None:
        return None

    def current_query(self) -> str:
        """The query the screen's results answer (the search screen's box)."""
        return ""

    def offers(self, action: str) -> bool:
        return action not in self.OFFERS_NOT

    def _target(self) -> SessionTarget | None:
        target = self.session_target()
        if target is None:
            self.app.notify(self.NO_TARGET, severity="warning", timeout=3)
        return target

    def with_session(self, target: SessionTarget, then: Callable[[Session], Awaitable[None] | None]) -> None:
        """`then(session)` on the UI thread, the session read in a worker if the screen does not hold it."""
        if target.session is not None:
            then(target.session)
        elif self.app.library is None:
            self.app.notify("The index is still opening", severity="warning")
        else:
            self._read_then(target.session_id, then)

    @work(thread=True, group="session-read")
    def _read_then(self, session_id: str, then: Callable[[Session], Awaitable[None] | None]) -> None:
        app = self.app
        with app.background.running():  # the index stays open until this returns
            library = app.library
            if library is None:
                return
            try:
                session = library.session(session_id)
            except ConvoError as exc:
                app.call_from_thread(app.notify, str(exc), severity="error")
                return
        app.call_from_thread(then, session)

    # -- the actions -------------------------------------------------------------------

    def action_open(self) -> None:
        if target := self._target():
            self.app.post_message(OpenReader(target.session_id, target.turn_index, self.current_query()))

    def action_copy(self) -> None:
        target = self._target()
        if target is None:
            return
        app = self.app
        hit = target.hit

        def copy(session: Session) -> None:
            if hit is not None:
                text = turn_markdown(session, hit.turn_index, hit.message_ids, app.redactor)
                handoff.copy_out(app, text, "the turn as Markdown", file_name="turn.md")
            else:
                handoff.copy_out(app, session_markdown(session, app.redactor), "the session as Markdown", file_name="session.md")

        self.with_session(target, copy)

    def action_copy_id(self) -> None:
        if target := self._target():
            handoff.copy_out(self.app, target.session_id, "the session id")

    def action_resume(self) -> None:
        if target := self._target():
            self.with_session(target, partial(handoff.resume, self.app))

    def action_copy_resume(self) -> None:
        if target := self._target():
            self.with_session(target, partial(handoff.copy_resume, self.app))

    def action_export(self) -> None:
        if target := self._target():
            handoff.export_context(self.app, target.session_id, self.current_query())

    def action_export_page(self) -> None:
        if target := self._target():
            handoff.export_page(self.app, target.session_id, "html")

    def action_export_markdown(self) -> None:
        if target := self._target():
            handoff.export_page(self.app, target.session_id, "md")

    def action_edit(self) -> None:
        target = self._target()
        if target is None:
            return
        if target.path:
            handoff.edit_source(self.app, target.path)
        else:
            self.with_session(target, lambda session: handoff.edit_source(self.app, session.path))

    def action_star(self) -> None:
        if target := self._target():
            self.edit_session(target.session_id, "star", None if target.starred is None else not target.starred)

    def action_rename(self) -> None:
        target = self._target()
        if target is None:
            return
        session_id = target.session_id
        # A title cut from the first question ends in "…": offered without it, to go on typing;
        # Enter on the title as offered changes nothing (it would pin the cut title).
        offered = target.title.removesuffix("…").rstrip()

        def renamed(title: str | None) -> None:
            if title is not None and title != offered:
                self.edit_session(session_id, "rename", title)

        self.app.push_screen(PromptScreen("New title (empty restores the source's):", offered), renamed)

    def action_tag(self) -> None:
        """The session's tags in a box, as "a, b": what is there when Enter is pressed
        are its tags (found by the sessions browser's filter, shown as #a #b)."""
        if target := self._target():
            self._ask_tags(target.session_id, target.title)

    @work(thread=True, exclusive=True, group="session-tags")  # # twice: one box
    def _ask_tags(self, session_id: str, title: str) -> None:
        app = self.app
        with app.background.running():  # the index stays open until this returns
            library = app.library
            if library is None:
                return
            try:
                tags = library.session_summary(session_id).tags
            except ConvoError as exc:
                app.call_from_thread(app.notify, str(exc), severity="error")
                return
        offered = ", ".join(tags)

        def answered(typed: str | None) -> None:
            if typed is not None and parse_tags(typed) != tags:
                self.edit_session(session_id, "tag", parse_tags(typed))

        named = display(title) or session_id
        label = f"Tags of “{named}”, separated by commas (empty removes them all):"
        app.call_from_thread(app.push_screen, PromptScreen(label, offered), answered)

    def action_delete(self) -> None:
        target = self._target()
        if target is None:
            return
        session_id = target.session_id

        def answered(yes: bool | None) -> None:
            if yes:
                self.edit_session(session_id, "delete", None)

        title = display(target.title) or session_id
        self.app.push_screen(ConfirmScreen(f"Delete “{title}” from the index?\nThe source file is not touched."), answered)

    # -- writing to the index, off the UI thread ------------------------------------------

    @work(thread=True, group="session-edit")
    def edit_session(self, session_id: str, what: str, value: Any) -> None:
        """Star (`value` None: the opposite of what the index says), rename, tag
        (`value`: the tags it has after) or delete; the app then tells every screen
        (SessionEdited)."""
        app = self.app
        with app.background.running():  # the index stays open until this returns
            library = app.library
            if library is None:
                return
            title: str | None = None
            starred: bool | None = None
            tags: list[str] | None = None
            try:
                if what == "tag":
                    current = library.session_summary(session_id).tags
                    gone = [tag for tag in current if tag not in value]  # by spelling: "Foo" -> "foo" changes it
                    if gone:
                        library.tag_session(session_id, gone, remove=True)
                    tags = library.tag_session(session_id, list(value)).tags
                    done = f"Tags: {display(tags_line(tags))}" if tags else "Tags removed"
                elif what == "star":
                    starred = (not library.session_summary(session_id).starred) if value is None else bool(value)
                    library.star_session(session_id, starred)
                    done = "Starred" if starred else "Unstarred"
                elif what == "rename":
                    title = library.rename_session(session_id, str(value)).title
                    done = f"Renamed to {display(title)}"
                else:
                    library.delete_session(session_id)
                    done = "Deleted from the index (the source file is untouched)"
            except ConvoError as exc:
                app.call_from_thread(app.notify, str(exc), severity="error")
                return
        # The app tells every screen, then says `done` (after a deleted session's reader has closed).
        edited = SessionEdited(session_id, deleted=what == "delete", title=title, starred=starred, tags=tags, done=done)
        app.post_message(edited)


def parse_tags(typed: str) -> list[str]:
    """ "a, #b , a" -> ["a", "b"]: what the tag box holds, read as every tag is kept
    (core/annotations.normalize_tags: split on commas, the # the app shows dropped)."""
    return normalize_tags([typed])
