"""How a session reopens in its own tool, and the check that keeps transcript
values off the command line.

A session id is read from a transcript (Claude Code's `sessionId`, a Codex
rollout's `meta.id`, Gemini's `sessionId`, OpenCode's `id`): a file on disk can
set it to anything, `--dangerously-skip-permissions` included. So an id reaches
a command only in the shape its tool gives ids, and after `--` where the tool's
parser takes one; the folder a session ran in must be an absolute path to an
existing folder, is shown before the command runs, and is only ever the child's
working directory (no shell sees it).

This is the one place that decides: the sources build `Session.resume` with
`command()`, and the faces (the app's ctrl+r, `convo-tui session resume`) run
what `plan()` returns, which checks the stored command again (an index written
by an older version is data too). When the command cannot run here the plan
says why in one line (`problem`: refused, the folder is gone, the program is
not on PATH) and the faces copy or print it instead.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass

from convo_tui.core.errors import shown
from convo_tui.core.model import Session

_UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
# OpenCode: `ses_` + 12 hex digits of time + 14 base62 characters (26 after the prefix);
# a little slack either way for other releases, letters and digits only.
_OPENCODE = re.compile(r"ses_[0-9A-Za-z]{16,40}")
# Amp: `T-` and a UUID; Goose: a date and a counter (`20250612_3`).
_AMP = re.compile(r"T-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_GOOSE = re.compile(r"[0-9]{8}_[0-9]+")
# C0 controls, DEL and C1 controls: never part of a folder we run in or print.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class ResumeTool:
    """One tool's resume command: `program` + `options`, then the session id."""

    label: str
    options: tuple[str, ...]  # program first: ("claude", "--resume")
    id_shape: re.Pattern[str] | None  # None: the command reopens without an id (Aider)
    id_label: str = ""
    # `--` before the id: the tool's parser reads what follows as positional only.
    # Claude Code (commander), Gemini CLI and OpenCode (yargs) take the id as the
    # option's value, where a `--` would end the option and make the id a prompt.
    end_of_options: bool = False

    def accepts(self, session_id: str) -> bool:
        return self.id_shape is not None and isinstance(session_id, str) and bool(self.id_shape.fullmatch(session_id))

    def argv(self, session_id: str | None) -> list[str] | None:
        if self.id_shape is None:
            return list(self.options)
        if session_id is None or not self.accepts(session_id):
            return None
        return [*self.options, *(("--",) if self.end_of_options else ()), session_id]


TOOLS: dict[str, ResumeTool] = {
    "claude": ResumeTool("Claude Code", ("claude", "--resume"), _UUID, "a UUID"),
    # clap: `codex resume [OPTIONS] [SESSION_ID]`, and `--` ends its options.
    "codex": ResumeTool("Codex CLI", ("codex", "resume"), _UUID, "a UUID", end_of_options=True),
    "gemini": ResumeTool("Gemini CLI", ("gemini", "--resume"), _UUID, "a UUID"),
    "opencode": ResumeTool("OpenCode", ("opencode", "--session"), _OPENCODE, "ses_ and letters or digits"),
    "aider": ResumeTool("Aider", ("aider", "--restore-chat-history"), None),
    # The tools read since: each id is checked whole against its shape, so it can
    # never start with `-`; their parsers take it as the option's value.
    "amp": ResumeTool("Amp", ("amp", "threads", "continue"), _AMP, "T- and a UUID"),
    "copilot": ResumeTool("GitHub Copilot CLI", ("copilot", "--resume"), _UUID, "a UUID"),
    "crush": ResumeTool("Crush", ("crush", "--session"), _UUID, "a UUID"),
    "cursor-agent": ResumeTool("Cursor CLI", ("cursor-agent", "--resume"), _UUID, "a UUID"),
    "droid": ResumeTool("Factory Droid", ("droid", "--resume"), _UUID, "a UUID"),
    "goose": ResumeTool("Goose", ("goose", "session", "--resume", "--session-id"), _GOOSE, "a date and a number"),
    "kimi": ResumeTool("Kimi CLI", ("kimi", "--session"), _UUID, "a UUID"),
    "kiro": ResumeTool("Kiro CLI", ("kiro-cli", "chat", "--resume-id"), _UUID, "a UUID"),
    "openhands": ResumeTool("OpenHands", ("openhands", "--resume"), _UUID, "a UUID"),
    "pi": ResumeTool("Pi", ("pi", "--session"), _UUID, "a UUID"),
    "qwen": ResumeTool("Qwen Code", ("qwen", "--resume"), _UUID, "a UUID"),
}


def command(tool: str, session_id: str | None = None) -> list[str] | None:
    """The argv that reopens `session_id` in `tool` (a key of TOOLS), or None
    when the id does not have the shape that tool gives ids."""
    return TOOLS[tool].argv(session_id)


@dataclass(frozen=True)
class ResumePlan:
    """What may run to reopen one session.

    `argv` is None when nothing may run (`refused` says why, in one line). `cwd`
    is the folder to run in, checked to exist; `folder_note` says why the
    session's recorded folder cannot be used (then the command is copied, not
    run, so it is not started in the wrong place).
    """

    argv: list[str] | None
    cwd: str | None = None
    refused: str | None = None
    folder_note: str | None = None
    copy_folder: str | None = None  # the recorded folder, clean enough to quote in a copied `cd`
    not_on_path: str | None = None  # the program is not installed here

    @property
    def problem(self) -> str | None:
        """Why the command cannot run here, in one line (None: it can)."""
        return self.refused or self.folder_note or self.not_on_path

    @property
    def runnable(self) -> bool:
        return self.argv is not None and self.problem is None

    def shell_line(self) -> str | None:
        """`cd <folder> && <command>`, quoted for a POSIX shell, to copy."""
        if self.argv is None:
            return None
        line = shlex.join(self.argv)
        return f"cd {shlex.quote(self.copy_folder)} && {line}" if self.copy_folder else line

    def announce(self) -> str:
        """The line shown on the terminal just before the command runs."""
        where = self.cwd or os.getcwd()
        return f"convo-tui: running {shown(shlex.join(self.argv or []), 400)} in {shown(where, 400)}"


def checked_command(argv: object, source: str = "") -> tuple[list[str] | None, str | None]:
    """The stored resume command if it is one `command()` would build (the
    older form without `--` is read too), else None and the reason."""
    if not argv:
        return None, f"No resume command for {shown(source) or 'this session'}"
    if not isinstance(argv, list) or not all(isinstance(part, str) for part in argv):
        return None, "The session's resume command is not a list of words: not run"
    for tool in TOOLS.values():
        size = len(tool.options)
        if tuple(argv[:size]) != tool.options:
            continue
        rest = argv[size:]
        if tool.id_shape is None:
            return (list(tool.options), None) if not rest else (None, _bad_command(argv))
        if rest[:1] == ["--"]:
            rest = rest[1:]
        if len(rest) != 1:
            return None, _bad_command(argv)
        if not tool.accepts(rest[0]):
            return None, (
                f"The session id {shown(rest[0], 60)!s} is not a {tool.label} session id ({tool.id_label}): not run, not copied"
            )
        return tool.argv(rest[0]), None
    return None, _bad_command(argv)


def _bad_command(argv: list[str]) -> str:
    return f"The session's resume command ({shown(' '.join(argv), 80)}) is not one convo-tui knows: not run"


def checked_folder(cwd: object) -> tuple[str | None, str | None, str | None]:
    """(folder to run in, why the recorded one cannot be used, folder to quote in a copy)."""
    if cwd is None or cwd == "":
        return None, None, None
    if not isinstance(cwd, str) or _CONTROL.search(cwd) or not os.path.isabs(cwd):
        return None, f"The session's folder {shown(cwd)} is not an absolute path", None
    try:
        is_dir = os.path.isdir(cwd)
    except (OSError, ValueError):
        is_dir = False
    if not is_dir:
        return None, f"The session's folder {shown(cwd)} is gone", cwd
    return cwd, None, cwd


def plan(session: Session, which: Callable[[str], str | None] = shutil.which) -> ResumePlan:
    """What `ctrl+r` may run for `session`: its tool's command with an id of
    the right shape, in the folder the session ran in when that folder exists,
    when the tool's program is on PATH."""
    argv, refused = checked_command(session.resume, session.source)
    if argv is None:
        return ResumePlan(None, refused=refused)
    cwd, note, copy_folder = checked_folder(session.cwd)
    missing = None if which(argv[0]) is not None else f"{argv[0]} is not on PATH"
    return ResumePlan(argv, cwd=cwd, folder_note=note, copy_folder=copy_folder, not_on_path=missing)
