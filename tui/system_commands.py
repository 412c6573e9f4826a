"""The command palette's system commands as this app wants them: Textual's own,
less "Keys" (F1 is the help) and "Maximize"/"Minimize" (they hatched the search
screen around its query box), and a "Screenshot" that names where it saved the
picture, or why it could not."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from convo_tui.core.settings import Settings
from textual.app import SystemCommand

if TYPE_CHECKING:
    from collections.abc import Iterable

    from textual.screen import Screen


class SystemCommands:
    """Mixed into the ConvoApp (which provides settings, demo and Textual's App methods)."""

    settings: Settings
    demo: bool

    if TYPE_CHECKING:  # Textual's App
        notify: Any
        set_timer: Any
        save_screenshot: Any

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's, less those that do not fit this app, with our Screenshot (see above)."""
        for command in super().get_system_commands(screen):  # type: ignore[misc]
            if command.title in ("Keys", "Maximize", "Minimize"):
                continue
            if command.title == "Screenshot":
                yield SystemCommand(
                    "Screenshot",
                    f"Save an SVG picture of the screen in {screenshots_dir(self.settings)}",
                    lambda: self.set_timer(0.1, self.take_screenshot),  # once the palette is gone
                )
                continue
            yield command

    def take_screenshot(self) -> None:
        folder = screenshots_dir(self.settings)
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            path = self.save_screenshot(path=str(folder))
        except OSError as exc:
            self.notify(f"Could not save the screenshot in {folder}: {exc.strerror or exc}", severity="error", timeout=8)
            return
        where = f"{path} (demo: removed when the app ends)" if self.demo else path
        self.notify(f"Screenshot saved to {where}", timeout=8)


def screenshots_dir(settings: Settings) -> Path:
    """Beside the index folder, like exports/ and copies/ (the demo's: in its temporary folder)."""
    return Path(settings.index_dir).parent / "screenshots"
