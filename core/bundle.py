"""A prompt-sized bundle of past turns for an agent: the most relevant turns for a
question, as Markdown, fitted to a token budget.

Tokens are estimated without a tokenizer: a Chinese, Japanese or Korean
character counts one, any other text one per four characters, which is close
to (and on the safe side of) what GPT and Claude tokenizers give for English,
code and CJK. The bundle never exceeds the budget by that estimate.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from convo_tui.core.hits import Hit

if TYPE_CHECKING:
    from convo_tui.core.engine import Engine

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
CANDIDATES = 20  # turns looked at; the budget decides how many make it
MIN_PIECE = 60  # tokens below which a cut turn is not worth including


def estimate_tokens(text: str) -> int:
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)


@dataclass
class Bundle:
    text: str
    tokens: int
    turns: list[dict[str, Any]] = field(default_factory=list)
    truncated: bool = False  # the last turn was cut to fit

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "tokens": self.tokens, "turns": self.turns, "truncated": self.truncated}


def _turn_text(hit: Hit, shown: Callable[[str], str]) -> tuple[str, str]:
    stamp = hit.timestamp.strftime("%Y-%m-%d") if hit.timestamp else "undated"
    head = f"## {shown(' '.join(hit.session_title.split())) or '(untitled)'} ({hit.project or '—'}, {stamp}, session {hit.session_id}, turn {hit.turn_index})"
    body = f"User: {shown(hit.user_text.strip())}\n\nAI: {shown(hit.ai_text.strip())}"
    return head, body


def _cut(text: str, tokens: int) -> str:
    """The start of `text` within about `tokens`, ended at a word."""
    keep = text
    while keep and estimate_tokens(keep) > tokens:
        keep = keep[: max(0, int(len(keep) * tokens / max(estimate_tokens(keep), 1)) - 1)]
    space = keep.rfind(" ")
    return (keep[:space] if space > len(keep) // 2 else keep).rstrip() + " …"


def build_bundle(hits: list[Hit], question: str, max_tokens: int, shown: Callable[[str], str] = lambda t: t) -> Bundle:
    title = f"# Past conversations relevant to: {shown(' '.join(question.split()))}"
    used = estimate_tokens(title) + 1  # and the final line end
    parts, turns, truncated = [title], [], False
    for hit in hits:
        head, body = _turn_text(hit, shown)
        piece = f"{head}\n\n{body}"
        cost = estimate_tokens(piece) + 1
        if used + cost <= max_tokens:
            parts.append(piece)
            used += cost
        else:
            room = max_tokens - used - estimate_tokens(head) - 4  # the joins and the cut's " …"
            if room >= MIN_PIECE:
                parts.append(f"{head}\n\n{_cut(body, room)}")
                truncated = True
            else:
                break
        turns.append(
            {
                "session_id": hit.session_id,
                "turn_index": hit.turn_index,
                "title": shown(hit.session_title),
                "score": round(hit.score, 4),
            }
        )
        if truncated:
            break
    text = "\n\n".join(parts) + "\n"
    return Bundle(text=text, tokens=estimate_tokens(text), turns=turns, truncated=truncated)


def context_bundle(
    engine: Engine,
    question: str,
    max_tokens: int,
    *,
    filters: str = "",
    mode: str = "hybrid",
    shown: Callable[[str], str] = lambda t: t,
) -> Bundle:
    """The turns that best answer `question` (with query `filters` such as `project:x`), fitted to `max_tokens`."""
    hits = engine.search(f"{question} {filters}".strip(), limit=CANDIDATES, mode=mode)
    return build_bundle(hits, question, max_tokens, shown)
