"""Cursor agent transcripts (`agent-transcripts/*.txt`): the documented form and the real one.

A line `user:` or `assistant:` alone starts a message. Inside assistant
messages, `[Tool call] NAME` starts a call whose `key: value` lines follow,
`[Tool result]` starts a block that is skipped, `[Thinking]` is reasoning kept
apart from the text. User text may be wrapped in `<user_query>` and carry other
tag blocks (`<attached_files>`), which go to `Message.meta`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from convo_tui.core.errors import ParseError
from convo_tui.core.model import ASSISTANT, USER, Message, Role, Session, ToolCall
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import (
    dict_of,
    file_mtime,
    head_records,
    json_records,
    list_of,
    number_messages,
    str_of,
    strip_bom,
    title_from_messages,
)
from convo_tui.core.sources._cursor_slug import decode_slug
from convo_tui.core.sources._drift import unknown

SOURCE = "cursor"
ROLE_LINES: dict[str, Role] = {"user:": USER, "assistant:": ASSISTANT}
_TOOL_CALL = re.compile(r"^\[Tool call\][ \t]*(.*)$")
_TOOL_RESULT = re.compile(r"^\[Tool result\]")
_THINKING = re.compile(r"^\[Thinking\][ \t]?(.*)$")
_PARAM = re.compile(r"^([ \t]*)([A-Za-z_][\w.\-]*):(?:[ \t](.*))?$")
# A tag block alone on its lines: `<attached_files>\n...\n</attached_files>`.
_WRAPPER = re.compile(r"(?ms)^<([A-Za-z_][\w-]*)>[ \t]*\n?(.*?)\n?[ \t]*</\1>[ \t]*$")
_QUERY_TAG = "user_query"
_OTHER_ROLE = re.compile(r"^(system|tool|developer|human|ai|model):$")  # role lines this reader has no rule for

TEXT, ARGS, RESULT, THINK = "text", "args", "result", "think"


class _Draft:
    """One message while its lines are being read."""

    def __init__(self, role: Role):
        self.role = role
        self.segments: list[list[str]] = [[]]
        self.thinking: list[str] = []
        self.tools: list[ToolCall] = []
        self.readers: list[_ArgsReader] = []

    def add(self, line: str) -> None:
        self.segments[-1].append(line)

    def cut(self) -> None:
        """Prose after a tool call or result is a new paragraph of the same message."""
        if self.segments[-1]:
            self.segments.append([])

    def finish(self) -> Message:
        for reader in self.readers:
            reader.close()
        parts = ("\n".join(segment).strip() for segment in self.segments)
        text = "\n\n".join(part for part in parts if part)
        meta: dict[str, Any] = {}
        if self.role == USER:
            text, meta = split_user_wrappers(text)
        thinking = "\n\n".join(t.strip() for t in self.thinking if t.strip())
        return Message(id="", role=self.role, text=text, thinking=thinking, tools=self.tools, meta=meta)


class _ArgsReader:
    """The `key: value` lines of one tool call; a value may span many lines.

    The first parameter line fixes the indent; a parameter line at that indent
    starts the next argument and anything else continues the current value (a
    `contents:` argument holds a whole file). With unindented arguments (the
    seed form) a blank line ends the call; with indented ones a blank line is
    kept in the value unless a marker follows it.
    """

    def __init__(self, call: ToolCall):
        self.call = call
        self.indent: int | None = None
        self.key: str | None = None
        self.blanks = 0
        self.values: dict[str, list[str]] = {}  # lines per key, joined once at the end

    def feed(self, line: str) -> bool:
        """Take the line; False means the call ended and the line is not ours."""
        if not line.strip():
            if self.indent is None or self.indent == 0:
                return False
            self.blanks += 1
            return True
        match = _PARAM.match(line)
        if match and (self.indent is None or len(match.group(1).expandtabs(4)) == self.indent):
            self.indent = len(match.group(1).expandtabs(4))
            self.key = match.group(2)
            self.values[self.key] = [match.group(3) or ""]
            self.blanks = 0
            return True
        if self.key is None:
            return False
        value = self.values[self.key]
        if value == [""] and not self.blanks:
            value[0] = line
        else:
            value.extend([""] * self.blanks)
            value.append(line)
        self.blanks = 0
        return True

    def close(self) -> None:
        self.call.args.update({key: "\n".join(lines) for key, lines in self.values.items()})


def split_user_wrappers(text: str) -> tuple[str, dict[str, str]]:
    """The user's own words, and the tag blocks Cursor wrapped around them."""
    parts: list[str] = []
    tags: dict[str, str] = {}
    position = 0
    for match in _WRAPPER.finditer(text):
        parts.append(text[position : match.start()])
        position = match.end()
        name, body = match.group(1), match.group(2).strip()
        if name == _QUERY_TAG:
            parts.append(body)
        else:
            tags[name] = f"{tags[name]}\n\n{body}" if name in tags else body
    parts.append(text[position:])
    words = "\n\n".join(p.strip() for p in parts if p.strip())
    return words, tags


def parse_transcript(text: str, path: Path) -> tuple[list[Message], list[str]]:
    """Messages in file order, and warnings for lines that could not be placed."""
    messages: list[Message] = []
    warnings: list[str] = []
    draft: _Draft | None = None
    mode = TEXT
    args: _ArgsReader | None = None
    thinking = _ThinkingBlock([""])
    for number, line in enumerate(strip_bom(text).splitlines(), start=1):
        role = ROLE_LINES.get(line.rstrip())
        if role is None and _OTHER_ROLE.match(line):
            unknown("record", f"role {line.rstrip()}")
        if role:
            if draft:
                messages.append(draft.finish())
            draft, mode = _Draft(role), TEXT
            continue
        if draft is None:
            if line.strip() and not warnings:
                warnings.append(f"{path}:{number}: text before the first `user:`/`assistant:` line ignored")
            continue
        if draft.role != ASSISTANT:
            draft.add(line)
            continue
        marker = line.startswith("[")
        if marker and (call := _TOOL_CALL.match(line)):
            tool = ToolCall(call.group(1).strip() or "tool")
            draft.tools.append(tool)
            draft.cut()
            args, mode = _ArgsReader(tool), ARGS
            draft.readers.append(args)
            continue
        if marker and _TOOL_RESULT.match(line):
            draft.cut()
            mode = RESULT
            continue
        if marker and (thought := _THINKING.match(line)):
            draft.cut()
            draft.thinking.append(thought.group(1))
            thinking = _ThinkingBlock(draft.thinking)
            mode = THINK
            continue
        if mode == ARGS and args is not None:
            if args.feed(line):
                continue
            mode = TEXT
        elif mode == RESULT:
            if line.strip():
                continue
            mode = TEXT
        elif mode == THINK:
            verdict = thinking.feed(line)
            if verdict == THINKING:
                continue
            mode = TEXT
            if verdict == ANSWER_AFTER_BLANK:
                draft.add("")
        draft.add(line)
    if draft:
        messages.append(draft.finish())
    return messages, warnings


THINKING, ANSWER, ANSWER_AFTER_BLANK = "thinking", "answer", "answer-after-blank"
_BOLD_HEADING = re.compile(r"^\*\*[^*].*\*\*$")
_CONTINUES = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s)")


class _ThinkingBlock:
    """Where a `[Thinking]` block ends; Cursor writes no end marker.

    Read from real transcripts: the answer follows the thinking on the very next
    line ("[Thinking] The user wants X.\nLet me check your config."), while a
    reasoning summary is a bold title, a blank line and its paragraph
    ("**Planning the fix**\n\nI'll read the file first."), possibly several.
    So a thinking block is: its first line; after a bold title, the paragraph
    below it; list items and lines after a colon that continue a paragraph;
    and further bold-titled sections. Anything else starts the answer, as do
    the next tool call and the next message (handled by the caller).
    """

    def __init__(self, blocks: list[str]):
        self.blocks = blocks
        self.pending_blank = False

    def _last_line(self) -> str:
        text = self.blocks[-1].rstrip()
        return text.rsplit("\n", 1)[-1].strip() if text else ""

    def feed(self, line: str) -> str:
        stripped = line.strip()
        last = self._last_line()
        if not stripped:
            if last:
                self.pending_blank = True
            return THINKING
        if not last:  # a bare `[Thinking]` line: its text starts on the next line
            self.blocks[-1] = line.strip()
            return THINKING
        if self.pending_blank:
            self.pending_blank = False
            if _BOLD_HEADING.match(last) or _BOLD_HEADING.match(stripped):
                self.blocks[-1] = self.blocks[-1].rstrip() + "\n\n" + line
                return THINKING
            return ANSWER_AFTER_BLANK
        if _CONTINUES.match(line) or last.endswith(":"):
            self.blocks[-1] += "\n" + line
            return THINKING
        return ANSWER


def project_for(path: Path) -> str:
    """`.../projects/<slug>/agent-transcripts/x.txt` (or `.../agent-transcripts/<id>/<id>.jsonl`)
    -> the slug's project, else the parent folder."""
    folder = path.absolute().parent
    if folder.name != "agent-transcripts" and folder.parent.name == "agent-transcripts":
        folder = folder.parent
    if folder.name == "agent-transcripts" and folder.parent.name:
        return decode_slug(folder.parent.name)
    return folder.name


def is_jsonl_transcript(head: str) -> bool:
    """The `.jsonl` transcripts Cursor writes since early 2026: `{role, message: {content: [parts]}}` lines."""
    records = head_records(head, 2)
    return (
        bool(records)
        and records[0].get("role") in ("user", "assistant")
        and isinstance(dict_of(records[0].get("message")).get("content"), (list, str))
    )


def parse_jsonl(path: Path, text: str) -> tuple[list[Message], list[str]]:
    warnings: list[str] = []
    messages: list[Message] = []
    for _number, line in json_records(path, text, warnings):
        role = line.get("role")
        content = dict_of(line.get("message")).get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else [dict_of(p) for p in list_of(content)]
        texts = []
        for part in parts:
            if part.get("type") == "text":
                texts.append(str_of(part.get("text")))
            else:
                unknown("part", part.get("type"))
        text = "\n\n".join(t.strip() for t in texts if t.strip())
        if role == "user":
            words, tags = split_user_wrappers(text)
            if words:
                messages.append(Message(id="", role=USER, text=words, meta={"context": tags} if tags else {}))
        elif role == "assistant":
            if text:
                messages.append(Message(id="", role=ASSISTANT, text=text))
        else:
            unknown("record", f"role {role}")
    return messages, warnings


def sniff(path: Path, head: str) -> bool:
    if path.is_dir():
        return False
    if is_jsonl_transcript(head):
        return True
    for line in strip_bom(head).splitlines():
        if line.strip():
            return line.rstrip() in ROLE_LINES
    return False


def sniff_or_location(path: Path, head: str) -> bool:
    """Content first; a `.txt` inside `agent-transcripts/` is ours even when malformed,
    so that the user hears what is wrong with it rather than "unknown format"."""
    if sniff(path, head):
        return True
    return not path.is_dir() and path.suffix == ".txt" and path.parent.name == "agent-transcripts"


def parse(path: Path) -> list[Session]:
    path = Path(path)
    text = read_text(path)
    messages, warnings = parse_jsonl(path, text) if is_jsonl_transcript(text[:65536]) else parse_transcript(text, path)
    if not messages:
        raise ParseError(path, "no `user:` or `assistant:` line found (not a Cursor transcript)")
    number_messages(messages)
    session = Session(
        id=path.stem,
        title=title_from_messages(messages, path.stem),
        project=project_for(path),
        source=SOURCE,
        path=str(path.absolute()),
        messages=messages,
        warnings=warnings,
    )
    # The text format has no times; the file's mtime says when it was last written.
    session.updated_at = file_mtime(path)
    session.fill_times()
    return [session]


FORMAT = SourceFormat(
    name=SOURCE,
    label="Cursor agent transcript",
    sniff=sniff_or_location,
    parse=parse,
    version=2,
    tool="Cursor agent transcripts",
    versions="`agent-transcripts/*.txt` of 2025 – 2026 and the `.jsonl` transcripts of 2026-02 on",
    places="`~/.cursor/projects/<slug>/agent-transcripts/` (`*.txt`, `*.jsonl`, `<id>/<id>.jsonl`; all systems)",
    resume="none",
    keeps="`user:`/`assistant:` blocks, tool calls with multi-line arguments, `[Thinking]` kept apart, `<user_query>` unwrapped; project from the folder slug",
)
