"""Messages about the set of indexed sessions, posted by workers and screens.

Screens never call each other's methods: a screen that changed a session (rename,
star, delete) tells the app, and the app passes the news to every screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from convo_tui.core.model import Session
    from convo_tui.core.stats import Stats


class SessionsChanged(Message):
    """Sessions were added, renamed, starred, tagged or deleted: lists showing them reload.

    Not bubbling: the app posts it to each screen, and a screen without a
    handler must not send it back up to the app.
    """

    bubble = False

    def __init__(
        self,
        session_id: str | None = None,
        *,
        deleted: bool = False,
        title: str | None = None,
        starred: bool | None = None,
        tags: list[str] | None = None,
    ) -> None:
        super().__init__()
        self.session_id = session_id
        self.deleted = deleted
        self.title = title  # the new title, when it was renamed
        self.starred = starred  # the new star, when it was starred or unstarred
        self.tags = tags  # the tags it has now, when they were changed


class SessionEdited(Message):
    """A screen changed a session (posted to the app, which tells every screen)."""

    def __init__(
        self,
        session_id: str,
        *,
        deleted: bool = False,
        title: str | None = None,
        starred: bool | None = None,
        tags: list[str] | None = None,
        done: str = "",
    ) -> None:
        super().__init__()
        self.session_id = session_id
        self.deleted = deleted
        self.title = title
        self.starred = starred
        self.tags = tags
        self.done = done  # what to tell the user once every screen knows


class SessionLoaded(Message):
    """A whole session was read in a worker, ready to show in the reader."""

    def __init__(self, session: Session | None, error: str | None = None) -> None:
        super().__init__()
        self.session = session
        self.error = error


class StatsLoaded(Message):
    """The stats screen's worker counted the index."""

    def __init__(self, stats: Stats | None, error: str | None = None, only_archived: int = 0) -> None:
        super().__init__()
        self.stats = stats
        self.error = error
        self.only_archived = only_archived  # sessions whose file is gone, kept by the archive


class ProjectsLoaded(Message):
    """(project, session count) and (tag, session count) read in a worker, cached by
    the app for the palette and the notes on an empty result."""

    def __init__(self, projects: list[tuple[str, int]], tags: list[tuple[str, int]] | None = None) -> None:
        super().__init__()
        self.projects = projects
        self.tags = tags or []
