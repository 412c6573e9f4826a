"""Whether a session can be resumed here, in its own tool, and if not why.

The app (ctrl+r) and `convo-tui session resume` run the source tool's own
command (`claude --resume <id>`, `codex resume <id>`...) in the session's
folder. When that cannot work the command is copied or printed instead, with
the reason in one line: the tool has no such command, the folder is gone, the
program is not on PATH. The id and folder come from the transcript: they are
data, so an id that would read as an option is refused rather than run.
"""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from convo_tui.core.model import Session


@dataclass(frozen=True)
class ResumePlan:
    """The command that resumes a session, where it runs, and why it cannot (None: it can)."""

    command: list[str] | None
    cwd: str | None
    problem: str | None

    @property
    def runnable(self) -> bool:
        return self.command is not None and self.problem is None

    def shell_line(self) -> str | None:
        """`cd <folder> && <command>`, quoted for a POSIX shell (None without a command)."""
        if not self.command:
            return None
        line = shlex.join(self.command)
        return f"cd {shlex.quote(self.cwd)} && {line}" if self.cwd else line


def plan_resume(session: Session, which: Callable[[str], str | None] = shutil.which) -> ResumePlan:
    command = list(session.resume) if session.resume else None
    cwd = session.cwd or None
    if not command:
        return ResumePlan(None, cwd, f"{session.source or 'its source'} has no resume command")
    if session.id.startswith("-") and session.id in command[1:]:
        return ResumePlan(command, cwd, f"the session id {session.id!r} reads as an option; not running it")
    if cwd and not Path(cwd).is_dir():
        return ResumePlan(command, cwd, f"the session's folder {cwd} is gone")
    if which(command[0]) is None:
        return ResumePlan(command, cwd, f"{command[0]} is not on PATH")
    return ResumePlan(command, cwd, None)
