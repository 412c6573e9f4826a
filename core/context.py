"""LLM context assembly: past conversation -> OpenAI Chat Completions messages.

The text format and the request body follow the "context sending" seed (004):
section titles are fixed so a model can tell the current conversation from
reference material, and the whole context travels as plain text inside one
`user` message (or two with `split`). The formatting functions are pure;
`context_for` gathers the recent messages and references from a Library.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

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
# The seed's label in front of the current question when it shares a message
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
    """`User: ...` / `Assistant: ...` / `System: ...`, the seed's per-message form."""
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
    context and the bare question as two user messages instead (seed plan B).
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
