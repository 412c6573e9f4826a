"""Command palette (ctrl+p): the app's actions by name.

Every command works from every screen: screen commands are offered only where
the screen has the action (the session actions are on the search screen, the
sessions browser and the reader alike, tui/session_actions.py), and they call
the screen's action (never a focused widget's, whose own `action_copy` is an
Input's text copy that raises SkipAction outside a key press). The project list
is the app's, read in a worker: no store call while the palette is open.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.markup import escape

if TYPE_CHECKING:
    from convo_tui.tui.app import ConvoApp

Command = tuple[str, Callable[[], object], str]

# (title, screen action, help): offered on the screens that have the action.
SCREEN_COMMANDS: list[tuple[str, str, str]] = [
    ("Open in the reader", "action_open", "The current result or session, whole"),
    ("Copy as Markdown", "action_copy", "The current result's turn, or the session"),
    ("Copy session id", "action_copy_id", "For the source tool's own resume or search"),
    ("Resume in its tool", "action_resume", "Run the session's resume command in its folder"),
    ("Copy resume command", "action_copy_resume", "cd <folder> && <the tool's resume command>"),
    ("Export LLM context", "action_export", "Chat Completions JSON to the clipboard and a file"),
    ("Export session as HTML page", "action_export_page", "A self-contained page to share, under exports/"),
    ("Export session as Markdown", "action_export_markdown", "GitHub-ready Markdown, under exports/"),
    ("Open the source file in $EDITOR", "action_edit", "A read-only copy of the transcript as the tool wrote it"),
    ("Star / unstar the session", "action_star", "Starred sessions are one key away in the sessions browser"),
    ("Rename the session", "action_rename", "A title of your own (the source file is not touched)"),
    ("Tag the session", "action_tag", "Tags of your own: tag:NAME in a search, or the sessions browser's filter"),
    ("Delete the session from the index", "action_delete", "Asks first; the source file is not touched"),
    ("Toggle compact view", "action_toggle_compact", "One line per result with a preview pane"),
    ("Toggle sort: date / relevance", "action_toggle_sort", "Newest results first, or the best first"),
    ("Toggle thinking", "action_toggle_thinking", "Show or hide the model's reasoning"),
    ("Toggle tool calls", "action_toggle_tools", "Show or hide tool calls"),
]


class ConvoCommands(Provider):
    def _commands(self) -> list[Command]:
        app: ConvoApp = self.app  # type: ignore[assignment]
        screen = self.screen
        commands: list[Command] = [
            ("Re-index now", app.action_reindex, "Look for new and changed transcripts"),
            ("Sessions: browse by project", app.action_sessions, "All sessions, grouped by project"),
            ("Help: list the keys", app.action_help, "Every key on this screen"),
        ]
        for mode in ("hybrid", "semantic", "keyword", "fuzzy"):
            commands.append((f"Mode: {mode}", partial(app.set_mode, mode), f"Search in {mode} mode"))
        offers = getattr(screen, "offers", lambda _action: True)
        for title, action, help_text in SCREEN_COMMANDS:
            method = getattr(screen, action, None)
            if callable(method) and offers(action):
                commands.append((title, method, help_text))
        commands.append(("Stats: sessions, messages, tokens", app.action_stats, "Per project, source and week"))
        for name, count in app.tags:  # the same: read in a worker by the app
            commands.append(
                (
                    f"Filter by tag: {escape(name)} ({count})",  # the palette reads titles as markup
                    partial(app.add_filter, "tag", name),
                    "Added to the query (replaces another tag:)",
                )
            )
        for name, count in app.projects:  # read in a worker by the app: no store call on a keystroke
            commands.append(
                (
                    f"Filter by project: {escape(name)} ({count})",
                    partial(app.add_filter, "project", name),
                    "Added to the query (replaces another project:)",
                )
            )
        return commands

    async def discover(self) -> Hits:
        for name, callback, help_text in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
