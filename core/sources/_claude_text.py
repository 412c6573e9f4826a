"""The user's own words in a Claude Code user line: the blocks Claude Code
injects (reminders, hook output, IDE context, local command output) taken out,
and a slash command or a `!` shell line shown as the user typed it. Factory's
Droid writes the same blocks (factory_droid.py)."""

from __future__ import annotations

import re

# Blocks Claude Code injects into the user's line: reminders, hook output, IDE
# context, local command output. They are not the user's words.
_INJECTED = re.compile(
    r"<(system-reminder|local-command-stdout|local-command-stderr|local-command-caveat|command-message|"
    r"bash-stdout|bash-stderr|user-prompt-submit-hook|ide_opened_file|ide_selection|ide_diagnostics)>.*?</\1>",
    re.DOTALL,
)
_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.DOTALL)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.DOTALL)
_INTERRUPTED = re.compile(r"^\[Request interrupted by user[^\]]*\]$", re.MULTILINE)


def clean_user_text(text: str) -> str:
    """The user's own words: injected blocks removed, a slash command shown as typed."""
    name = _COMMAND_NAME.search(text)
    if name:
        args = _COMMAND_ARGS.search(text)
        command = name.group(1).strip()
        if args and args.group(1).strip():
            command = f"{command} {args.group(1).strip()}"
        text = _COMMAND_ARGS.sub("", _COMMAND_NAME.sub("", text))
        text = f"{command}\n\n{text}"
    text = _BASH_INPUT.sub(lambda m: f"!{m.group(1).strip()}", text)
    text = _INJECTED.sub("", text)
    text = _INTERRUPTED.sub("", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()
