"""Building a Session the way every reader does: a reply's parts, tool calls
found again by id when their results arrive, the session record, and the
command that reopens it (only for an id of the tool's own shape).

Part of the reader contract (docs/ARCHITECTURE.md, "Adding a source").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from convo_tui.core.model import ASSISTANT, Message, Role, Session, ToolCall
from convo_tui.core.sources._common import (
    clip,
    clip_result,
    folder_name,
    joined,
    number_messages,
    title_from_messages,
)

# The id shapes resume commands accept. A value read from a transcript is
# data: it reaches a command line only when it has the tool's own shape (so it
# can never be an option such as `--config=...` or carry a path).
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
HEX32 = re.compile(r"[0-9a-f]{32}")


def resume_command(command: Sequence[str], session_id: str, shape: re.Pattern[str]) -> list[str] | None:
    """`[*command, session_id]` when the id has `shape` (matched whole), else None."""
    return [*command, session_id] if shape.fullmatch(session_id) else None


@dataclass
class Reply:
    """One message's parts while a reader collects them."""

    texts: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    tools: list[ToolCall] = field(default_factory=list)

    def empty(self) -> bool:
        return not (joined(self.texts) or joined(self.thinking) or self.tools)

    def message(
        self,
        role: Role,
        timestamp: datetime | None,
        meta: dict[str, Any] | None = None,
        *,
        separator: str = "\n\n",
        sidechain: bool = False,
        error: bool = False,
    ) -> Message | None:
        """The message these parts make, or None when they hold nothing."""
        if self.empty():
            return None
        return Message(
            id="",
            role=role,
            text=joined(self.texts, separator),
            thinking=joined(self.thinking),
            timestamp=timestamp,
            tools=list(self.tools) if role == ASSISTANT else [],
            sidechain=sidechain,
            error=error,
            meta={k: v for k, v in (meta or {}).items() if v not in (None, "", {}, [])},
        )


class Calls:
    """Tool calls by id, so that a result written later is attached to its call."""

    def __init__(self) -> None:
        self._by_id: dict[str, ToolCall] = {}

    def add(self, call_id: Any, call: ToolCall) -> ToolCall:
        if isinstance(call_id, str) and call_id:
            self._by_id.setdefault(call_id, call)
        return call

    def get(self, call_id: Any) -> ToolCall | None:
        return self._by_id.get(call_id) if isinstance(call_id, str) else None

    def __contains__(self, call_id: object) -> bool:
        return isinstance(call_id, str) and call_id in self._by_id

    def answer(self, call_id: Any, output: str) -> bool:
        """Attach `output` to the call with this id (the first answer wins); False when no call has it."""
        call = self.get(call_id)
        if call is None:
            return False
        if not call.result and output:
            call.result = clip_result(output)
        return True


def build_session(
    path: Path,
    source: str,
    session_id: str,
    messages: list[Message],
    *,
    title: Any = None,
    cwd: Any = None,
    project: str | None = None,
    started: datetime | None = None,
    updated: datetime | None = None,
    meta: dict[str, Any] | None = None,
    resume: list[str] | None = None,
    warnings: list[str] | None = None,
) -> Session:
    """The Session of one conversation: numbered messages, a title (the tool's,
    else the first thing the user asked), the project named after its folder,
    and the start and end from the messages where the tool wrote none."""
    number_messages(messages)
    folder = cwd if isinstance(cwd, str) and cwd.strip() else None
    named = clip(title) if isinstance(title, str) and title.strip() else ""
    session = Session(
        id=session_id,
        title=named or title_from_messages(messages, session_id),
        project=folder_name(folder) if folder else (project or path.absolute().parent.name),
        source=source,
        path=str(path),
        messages=messages,
        started_at=started,
        updated_at=updated,
        meta={k: v for k, v in (meta or {}).items() if v not in (None, "", {}, [])},
        cwd=folder,
        resume=resume,
        warnings=list(warnings or []),
    )
    session.fill_times()
    return session
