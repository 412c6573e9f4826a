"""A session as JSON: the `convo-tui show --json` shape, plus what the header of the
other formats says (tool, models, usage, cost)."""

from __future__ import annotations

import json
from typing import Any

from convo_tui.core.cost.prices import PICO_PER_USD
from convo_tui.core.export.facts import SessionFacts
from convo_tui.core.model import Session
from convo_tui.core.serialize import session_to_json


def render_json(session: Session, facts: SessionFacts) -> str:
    """`session` is already masked (core/export/facts.py)."""
    data = session_to_json(session)
    summary: dict[str, Any] = {"tool": facts.tool, "models": facts.models}
    summary["tags"], summary["description"] = list(facts.tags), facts.description
    summary["usage"] = facts.usage.to_json() if facts.usage else None
    if facts.cost is not None:
        summary["cost_usd"] = facts.cost.pico / PICO_PER_USD
        summary["unpriced_tokens"] = dict(sorted(facts.cost.unpriced.items()))
    data["export"] = summary
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
