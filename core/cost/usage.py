"""Token usage in one shape, whatever shape the source logged it in.

Sources keep a provider's own `usage` object in `Message.meta["usage"]`
(core/sources/): Anthropic style (Claude Code, OpenCode: cache reads and
writes counted apart from `input_tokens`) or OpenAI style (Codex, Gemini CLI
as parsed: `cached_input_tokens` inside `input_tokens`, reasoning inside
`output_tokens`). `Usage` splits the prompt into what each part is billed
at: fresh input, cache reads, cache writes (5-minute, and 1-hour where the
source says so), and output.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from convo_tui.core.model import Message, Session

# The key Claude Code's parser keeps the 1-hour share of `cache_creation_input_tokens` under.
CACHE_WRITE_1H_KEY = "cache_creation_1h_input_tokens"


@dataclass
class Usage:
    """Tokens by how they are billed; `cache_write` is the 5-minute (default) writes only."""

    input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cache_write_1h: int = 0
    output: int = 0

    @property
    def prompt(self) -> int:
        """Every prompt token, cached or not (what the stats call input)."""
        return self.input + self.cache_read + self.cache_write + self.cache_write_1h

    @property
    def total(self) -> int:
        return self.prompt + self.output

    def add(self, other: Usage) -> None:
        for name in _FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def to_json(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in _FIELDS}

    @classmethod
    def from_json(cls, data: Any) -> Usage:
        values = data if isinstance(data, dict) else {}
        return cls(**{name: _count(values.get(name)) for name in _FIELDS})


_FIELDS = tuple(f.name for f in fields(Usage))


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def message_usage(meta: dict[str, Any]) -> Usage | None:
    """The usage a parser kept in `Message.meta`, or None when the source recorded none."""
    usage = meta.get("usage")
    if isinstance(usage, dict):
        found = _from_usage_object(usage)
        if found.total:
            return found
    if "tokens_input" in meta or "tokens_output" in meta:  # conversation export rows
        found = Usage(input=_count(meta.get("tokens_input")), output=_count(meta.get("tokens_output")))
        if found.total:
            return found
    return None


def _from_usage_object(usage: dict[str, Any]) -> Usage:
    cached_inside = _count(usage.get("cached_input_tokens"))  # OpenAI style: part of input_tokens
    given_input = _count(usage.get("input_tokens")) + _count(usage.get("prompt_tokens"))
    writes = _count(usage.get("cache_creation_input_tokens"))
    hour = min(_count(usage.get(CACHE_WRITE_1H_KEY)), writes)
    return Usage(
        input=max(0, given_input - cached_inside),
        cache_read=min(cached_inside, given_input) + _count(usage.get("cache_read_input_tokens")),
        cache_write=writes - hour,
        cache_write_1h=hour,
        output=_count(usage.get("output_tokens")) + _count(usage.get("completion_tokens")),
    )


def message_model(message: Message, session: Session) -> str:
    """The model that wrote the message, as the source named it ("" when it named none)."""
    for meta in (message.meta, session.meta):
        model = meta.get("model")
        if isinstance(model, str) and model.strip():
            return model.strip()
    return ""


def session_usage(session: Session) -> dict[str, Usage]:
    """Usage per model over every message of the session (sub-agents' usage is usage too)."""
    models: dict[str, Usage] = {}
    for message in session.messages:
        usage = message_usage(message.meta)
        if usage is not None:
            models.setdefault(message_model(message, session), Usage()).add(usage)
    return models
