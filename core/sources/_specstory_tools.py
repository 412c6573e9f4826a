"""What a SpecStory tool block says (core/sources/specstory.py): its arguments,
read from the summary line, a description, inline code or a shell block, and
its output, the last code block that is not the command."""

from __future__ import annotations

import html
import re

from convo_tui.core.sources._common import clip

# A code fence's opening line, and a label that starts a tool's output.
FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
RESULT_LABEL = re.compile(r"^\**(Result|Output|Error)s?:?\**:?$", re.IGNORECASE)

_SUMMARY_ARG = re.compile(
    r"^(Run command|Read file|Edit file|Write file|Delete file|List directory|Search|Grep for|Fetch)\s*:\s*(.+)$"
)
_ARG_FOR = {
    "Run command": "command",
    "Read file": "path",
    "Edit file": "path",
    "Write file": "path",
    "Delete file": "path",
    "List directory": "path",
}
_COMMAND_LANGS = {"bash", "sh", "shell", "zsh", "console", "powershell", "pwsh", "cmd", "fish"}
_INLINE_CODE = re.compile(r"^`([^`]+)`$")
_FENCE_BLOCK = re.compile(r"^\s{0,3}(`{3,}|~{3,})([^\n`]*)\n(.*?)\n\s{0,3}\1\s*$", re.DOTALL | re.MULTILINE)


def tool_args(kind: str, summary: str, body: str) -> dict[str, str]:
    """The arguments a v2 `<tool-use>` block shows: its summary line, a description
    line, an inline `path` or command, a bash block with the command."""
    args: dict[str, str] = {}
    said = _SUMMARY_ARG.match(summary)
    if said and said.group(1) in _ARG_FOR:
        args[_ARG_FOR[said.group(1)]] = said.group(2).strip()
    outside = _FENCE_BLOCK.sub("", body)
    for raw in outside.splitlines():
        line = html.unescape(raw.strip())
        if line.startswith(("```", "~~~")):
            break  # a code block never closed: the file was cut inside the tool's output
        if not line or line.startswith("<"):
            continue
        inline = _INLINE_CODE.match(line)
        if inline:
            key = "command" if kind == "shell" else "path"
            args.setdefault(key, inline.group(1).strip())
        elif "description" not in args and not RESULT_LABEL.match(line):
            args["description"] = clip(line, 200)
    if kind == "shell" and "command" not in args:
        for block in _FENCE_BLOCK.finditer(body):
            if block.group(2).strip().lower() in _COMMAND_LANGS:
                args["command"] = block.group(3).strip()
                break
    return args


def tool_output(body: str) -> str:
    """What the tool answered: the last code block that is not the command itself."""
    blocks = [b for b in _FENCE_BLOCK.finditer(body) if b.group(2).strip().lower() not in _COMMAND_LANGS]
    return html.unescape(blocks[-1].group(3)).strip() if blocks else ""


def first_plain_line(lines: list[str]) -> str:
    """The old form's argument line (`Read file: x`), read before any output starts."""
    for line in lines:
        stripped = line.strip()
        if FENCE.match(line) or RESULT_LABEL.match(stripped) or stripped.startswith("<details"):
            return ""
        if stripped and not stripped.startswith("<"):
            return stripped
    return ""
