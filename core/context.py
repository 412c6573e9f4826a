"""LLM context assembly: past conversation -> OpenAI Chat Completions messages.

The text format and the request body follow the "context sending" seed (004):
section titles are fixed so a model can tell the current conversation from
reference material, and the whole context travels as plain text inside one
`user` message (or two with `split`). The formatting functions are pure;
`context_for` gathers the recent messages and references from an Engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from convo_tui.core.hits import Hit
from convo_tui.core.limits import MAX_COUNT
from convo_tui.core.model import Session
from convo_tui.core.search.query import session_filter

if TYPE_CHECKING:
    from convo_tui.core.engine import Engine

ChatRole = Literal["system", "user", "assistant"]

# Sent as the `system` message unless the caller gives another text.
DEFAULT_SYSTEM = (
    "You are a helpful assistant for a software developer. The user message "
    "carries excerpts of earlier conversations with AI coding assistants: "
    "use them to answer the question, and say so when they do not contain "
    "the answer."
)
DEFAULT_LLM_MODEL = "gpt-4o-mini"

PREFERENCES_TITLE = "User Preferences: "
RECENT_TITLE = "Conversation (recent):"
REFERENCE_TITLE = "Relevant reference (semantic):"
# The label in front of the current question when it shares a message
# with the context.
QUESTION_LABEL = "用户提问: "

_ROLE_LABELS = {"user": "User", "assistant": "Assistant", "system": "System"}


@dataclass(frozen=True)
class ChatMessage:
    """One item of the request's `messages` array."""

    role: ChatRole
    content: str

    def to_json(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


def format_line(role: str, text: str) -> str:
    """`User: ...` / `Assistant: ...` / `System: ...`, the per-message form of the context format."""
    label = _ROLE_LABELS.get(role)
    if label is None:
        raise ValueError(f"unknown role {role!r} (expected user, assistant or system)")
    return f"{label}: {text.strip()}"


def format_context(
    preferences: str | None,
    recent: Sequence[str] = (),
    references: Sequence[str] = (),
) -> str:
    """The context text block; sections without content are left out ("" if none)."""
    sections: list[str] = []
    if preferences and preferences.strip():
        sections.append(PREFERENCES_TITLE + preferences.strip())
    if recent:
        sections.append("\n".join([RECENT_TITLE, *recent]))
    if references:
        sections.append("\n".join([REFERENCE_TITLE, *references]))
    return "\n\n".join(sections)


def build_messages(
    question: str,
    *,
    system: str | None = DEFAULT_SYSTEM,
    preferences: str | None = None,
    recent: Iterable[str] = (),
    references: Iterable[str] = (),
    split: bool = False,
) -> list[ChatMessage]:
    """The `messages` list: optional system, then the context and the question.

    Without context the user message is the bare question. With context it is
    the context, a blank line and `用户提问: {question}`; `split` sends the
    context and the bare question as two user messages instead (the format's
    alternative layout).
    """
    messages: list[ChatMessage] = []
    if system:
        messages.append(ChatMessage("system", system))
    context = format_context(preferences, list(recent), list(references))
    question = question.strip()
    if not context:
        messages.append(ChatMessage("user", question))
    elif split:
        messages.append(ChatMessage("user", context))
        messages.append(ChatMessage("user", question))
    else:
        messages.append(ChatMessage("user", f"{context}\n\n{QUESTION_LABEL}{question}"))
    return messages


def request_body(model: str, messages: Sequence[ChatMessage]) -> dict[str, Any]:
    """The Chat Completions request body, ready for `json.dumps`."""
    return {"model": model, "messages": [m.to_json() for m in messages]}


def recent_lines(session: Session, count: int) -> list[str]:
    """The last `count` conversation messages of a session, oldest first."""
    if count <= 0:
        return []
    spoken = [m for m in session.messages if m.is_conversation and m.text.strip()]
    return [format_line(m.role, m.text) for m in spoken[-count:]]


def reference_lines(hits: Iterable[Hit], count: int, exclude: Iterable[str] = ()) -> list[str]:
    """`User:`/`Assistant:` lines of the best `count` hits that add something new.

    A hit whose lines are all in `exclude` (the recent section) or already
    taken from a better hit does not use up one of the `count` places.
    """
    seen = set(exclude)
    lines: list[str] = []
    used = 0
    for hit in hits:
        if used >= count:
            break
        fresh = []
        for role, text in (("user", hit.user_text), ("assistant", hit.ai_text)):
            if text.strip():
                line = format_line(role, text)
                if line not in seen:
                    seen.add(line)
                    fresh.append(line)
        if fresh:
            lines.extend(fresh)
            used += 1
    return lines


def context_for(
    engine: Engine,
    question: str,
    *,
    session_id: str | None = None,
    recent: int = 10,
    refs: int = 5,
    all_sessions: bool = False,
    preferences: str | None = None,
    system: str | None = DEFAULT_SYSTEM,
    split: bool = False,
) -> list[ChatMessage]:
    """The messages for `question`, drawn from the index.

    With `session_id`: its last `recent` messages, and references searched in
    that session only (every session with `all_sessions`). Without it: no
    recent section, references from every session.
    """
    recent_part: list[str] = []
    # A stray quote in a question is prose, not an unfinished phrase.
    query = question if question.count('"') % 2 == 0 else question.replace('"', " ")
    if session_id is not None:
        recent_part = recent_lines(engine.session(session_id), recent)
        if not all_sessions:
            # Last, so a `session:` written in the question cannot widen the scope.
            query = f"{query} {session_filter(session_id)}"
    references: list[str] = []
    if refs > 0 and question.strip():
        # Ask for spares: hits made only of recent lines do not count.
        hits = engine.search(query, limit=min(MAX_COUNT, refs + recent // 2 + 2))
        references = reference_lines(hits, refs, exclude=recent_part)
    return build_messages(
        question,
        system=system,
        preferences=preferences,
        recent=recent_part,
        references=references,
        split=split,
    )
