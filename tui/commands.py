"""Command palette (ctrl+p): the app's actions by name."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from convo_tui.tui.app import ConvoApp


class ConvoCommands(Provider):
    def _commands(self) -> list[tuple[str, Callable[[], object], str]]:
        app: ConvoApp = self.app  # type: ignore[assignment]
        screen = self.screen
        commands: list[tuple[str, Callable[[], object], str]] = [
            ("Re-index now", app.action_reindex, "Look for new and changed transcripts"),
            ("Sessions: browse by project", app.action_sessions, "All sessions, grouped by project"),
            ("Help: list the keys", app.action_help, "Every key on this screen"),
        ]
        for mode in ("hybrid", "semantic", "keyword", "fuzzy"):
            commands.append((f"Mode: {mode}", partial(app.set_mode, mode), f"Search in {mode} mode"))
        if hasattr(screen, "action_toggle_thinking"):
            commands.append(("Toggle thinking", screen.action_toggle_thinking, "Show or hide the model's reasoning"))
            commands.append(("Toggle tool calls", screen.action_toggle_tools, "Show or hide tool calls"))
        focused = screen.focused
        target = focused if hasattr(focused, "action_copy") else screen
        if hasattr(target, "action_copy"):
            commands.append(("Copy as Markdown", target.action_copy, "The focused card or the session"))
        if hasattr(target, "action_export"):
            commands.append(("Export LLM context", target.action_export, "Chat Completions JSON to the clipboard and a file"))
        commands.append(("Stats: sessions, messages, tokens", app.action_stats, "Per project, source and week"))
        for name, count in app.projects:  # read in a worker by the app: no store call on a keystroke
            query = f'project:"{name}" ' if " " in name else f"project:{name} "
            commands.append(
                (f"Filter by project: {name} ({count})", partial(app.set_query, query), "Search in this project only")
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
