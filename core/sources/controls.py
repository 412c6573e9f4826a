"""Terminal control removed from what a reader returns (core/unicode.without_controls).

A session's texts are shown on terminals (the app, `show`, `search`) and read by
the keyword model: a colour code kept from a tool's output is noise to both, and
a title change, screen clear or clipboard write in a hostile transcript acted on
the reader's terminal. Repaired here, once, for every reader, as lone surrogates
are (surrogates.py). Ids, paths, projects and folders are left as they are (they
name files); the faces escape those where they show them.
"""

from __future__ import annotations

from convo_tui.core.model import Session
from convo_tui.core.sources.surrogates import fix_strings
from convo_tui.core.unicode import without_controls


def _counted(text: str) -> tuple[str, int]:
    clean = without_controls(text)
    return clean, int(clean is not text)


def repair(session: Session) -> None:
    """Remove the terminal control of `session`'s title and messages, in place."""
    session.title = without_controls(session.title)
    for message in session.messages:
        message.text = without_controls(message.text)
        message.thinking = without_controls(message.thinking)
        if message.attachment is not None:
            message.attachment = without_controls(message.attachment)
        for tool in message.tools:
            tool.name = without_controls(tool.name) or "tool"  # as the readers name a call without one
            tool.result = without_controls(tool.result)
            if isinstance(tool.args, dict | list):
                fix_strings(tool.args, _counted)
