"""The transcript model every source produces and everything else consumes.

Plain dataclasses with no behaviour beyond small derived views, so that parsers,
the index, the CLI and the app can share them without importing each other,
and the pairing rules that make a session's turns (a Turn is defined by them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

Role = Literal["user", "assistant", "system"]

USER: Role = "user"
ASSISTANT: Role = "assistant"
SYSTEM: Role = "system"


@dataclass
class ToolCall:
    """One call the assistant made; `args` keeps the source's argument values.

    `result` is what the tool answered (an error, a test run, a file), as far
    as the source recorded it: shown apart and searchable by keyword, never
    part of the message text.
    """

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    result: str = ""

    def result_head(self, lines: int) -> tuple[list[str], int]:
        """The result's first `lines` lines, and how many more it has (a read file, a
        test run: the faces show the start and say how much is left)."""
        kept = self.result.strip("\n").splitlines()
        return kept[:lines], max(0, len(kept) - lines)


@dataclass
class Message:
    """One message as the user saw it, with tool traffic and thinking set apart.

    `text` never contains tool calls or tool results. `virtual` messages were
    shown to the user but never sent to the model (chat threads); `sidechain`
    messages belong to a sub-agent; `error` marks an API error the tool logged.
    Neither of those three takes part in pairing or indexing.
    """

    id: str
    role: Role
    text: str
    thinking: str = ""
    timestamp: datetime | None = None
    tools: list[ToolCall] = field(default_factory=list)
    virtual: bool = False
    sidechain: bool = False
    error: bool = False
    is_html: bool = False
    attachment: str | None = None
    available_tasks: list[Any] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def is_conversation(self) -> bool:
        """True when the message is part of the user <-> model exchange."""
        return not (self.virtual or self.sidechain or self.error)


@dataclass
class Turn:
    """A user question and the AI's answer, merged per the pairing rules."""

    index: int
    user_message_ids: list[str]
    ai_message_ids: list[str]
    user_text: str
    ai_text: str
    combined_text: str
    tools: list[ToolCall] = field(default_factory=list)
    timestamp: datetime | None = None

    @property
    def message_ids(self) -> list[str]:
        return [*self.user_message_ids, *self.ai_message_ids]

    @property
    def tool_names(self) -> list[str]:
        return [tool.name for tool in self.tools]


@dataclass
class Session:
    """One conversation from one source file (or thread folder)."""

    id: str
    title: str
    project: str
    source: str
    path: str
    messages: list[Message] = field(default_factory=list)
    started_at: datetime | None = None
    updated_at: datetime | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    # Where the session ran, and the command that reopens it in its tool
    # (argv, run in `cwd`); None where the source records none.
    cwd: str | None = None
    resume: list[str] | None = None
    # Problems the parser recovered from (a truncated line, a dangling parent):
    # the session is usable, the user is told.
    warnings: list[str] = field(default_factory=list)
    _turns: list[Turn] | None = field(default=None, repr=False, compare=False)

    @property
    def turns(self) -> list[Turn]:
        if self._turns is None:
            self._turns = pair_messages(self.messages)
        return self._turns

    def turn_groups(self) -> list[tuple[int | None, list[Message]]]:
        """Messages in order, cut where a turn starts; asides (sub-agent lines,
        errors, system notes) stay with the turn before: how the reader and the
        exports lay a session out."""
        owner = {mid: turn.index for turn in self.turns for mid in turn.message_ids}
        groups: list[tuple[int | None, list[Message]]] = []
        for message in self.messages:
            index = owner.get(message.id)
            if index is not None and (not groups or groups[-1][0] != index):
                groups.append((index, []))
            elif not groups:
                groups.append((None, []))
            groups[-1][1].append(message)
        return groups

    def message(self, message_id: str) -> Message | None:
        for message in self.messages:
            if message.id == message_id:
                return message
        return None

    def fill_times(self) -> None:
        """Derive started_at/updated_at from message timestamps when unset."""
        stamps = [m.timestamp for m in self.messages if m.timestamp is not None]
        if stamps:
            self.started_at = self.started_at or min(stamps)
            self.updated_at = self.updated_at or max(stamps)


# -- Pairing: messages -> turns, by the rules of docs/ARCHITECTURE.md ("Pairing") --
# A user message that arrives after AI messages closes the current turn;
# consecutive user messages accumulate, consecutive AI messages accumulate, and a
# trailing half-turn is still a turn. Virtual, sidechain, error and system
# messages never take part.


def combine_texts(messages: list[Message]) -> str:
    return "\n\n".join(t for t in (m.text.strip() for m in messages) if t)


def combined_text(user_text: str, ai_text: str) -> str:
    return f"用户: {user_text}\n\nAI: {ai_text}"


def _make_turn(index: int, users: list[Message], ais: list[Message]) -> Turn:
    user_text = combine_texts(users)
    ai_text = combine_texts(ais)
    tools: list[ToolCall] = [tool for m in ais for tool in m.tools]
    stamp = next((m.timestamp for m in (*users, *ais) if m.timestamp is not None), None)
    return Turn(
        index=index,
        user_message_ids=[m.id for m in users],
        ai_message_ids=[m.id for m in ais],
        user_text=user_text,
        ai_text=ai_text,
        combined_text=combined_text(user_text, ai_text),
        tools=tools,
        timestamp=stamp,
    )


def pair_messages(messages: list[Message]) -> list[Turn]:
    turns: list[Turn] = []
    users: list[Message] = []
    ais: list[Message] = []
    for message in messages:
        if not message.is_conversation:
            continue
        if message.role == USER:
            if ais:
                turns.append(_make_turn(len(turns), users, ais))
                users, ais = [], []
            users.append(message)
        elif message.role == ASSISTANT:
            ais.append(message)
    if users or ais:
        turns.append(_make_turn(len(turns), users, ais))
    return turns
