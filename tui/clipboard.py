"""Copy that tells the truth: say "Copied" only when a clipboard really took the text.

In order: the system clipboard (pyperclip: pbcopy, wl-copy, xclip, xsel,
Windows), checked by reading it back; inside tmux, tmux's paste buffer. The
text is always sent to the terminal as well (OSC 52), which works over SSH when
the terminal allows it, but nothing reports whether it did: when neither of the
others took the text it is also written to a file whose path is shown.

`CONVO_TUI_CLIPBOARD=file` skips the system clipboard and tmux (the tests use
it, so they never overwrite the clipboard of the person running them).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

CLIPBOARD_ENV = "CONVO_TUI_CLIPBOARD"


@dataclass(frozen=True)
class CopyOutcome:
    copied_by: str | None  # "system clipboard", "tmux buffer", or None
    saved_to: Path | None  # the file written when no clipboard took the text
    error: str | None = None  # why the file could not be written either

    def message(self, what: str) -> str:
        if self.copied_by == "system clipboard":
            return f"Copied {what}"
        if self.copied_by:
            return f"Copied {what} to the {self.copied_by}"
        if self.saved_to is not None:
            return f"No clipboard reachable: {what} saved to {self.saved_to} (also sent to the terminal, OSC 52)"
        return f"Nothing copied: no clipboard reachable and the file could not be written ({self.error})"

    @property
    def ok(self) -> bool:
        return self.copied_by is not None or self.saved_to is not None


def _system_copy(text: str) -> bool:
    """True only when the system clipboard gives the text back."""
    try:
        import pyperclip

        pyperclip.copy(text)
        return pyperclip.paste() == text
    except Exception:  # PyperclipException, a missing or failing helper program
        return False


def _tmux_copy(text: str) -> bool:
    if not os.environ.get("TMUX"):
        return False
    try:
        done = subprocess.run(["tmux", "load-buffer", "-w", "-"], input=text.encode(), timeout=3, capture_output=True)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def copy_text(text: str, fallback_file: Path) -> CopyOutcome:
    """Put `text` on a clipboard, or into `fallback_file`; run it off the UI thread (helpers may be slow)."""
    if os.environ.get(CLIPBOARD_ENV, "auto") != "file":
        if _system_copy(text):
            return CopyOutcome("system clipboard", None)
        if _tmux_copy(text):
            return CopyOutcome("tmux buffer", None)
    try:
        fallback_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fallback_file.write_text(text, encoding="utf-8")
        os.chmod(fallback_file, 0o600)
    except OSError as exc:
        return CopyOutcome(None, None, error=exc.strerror or str(exc))
    return CopyOutcome(None, fallback_file)


def copies_dir(index_dir: Path) -> Path:
    """Beside the index, in the user's data dir: the copies hold conversation text, owner only."""
    return Path(index_dir).parent / "copies"
