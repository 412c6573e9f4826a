"""A session as a file to share: a self-contained HTML page, GitHub Markdown or JSON.

`render_export` is what the CLI (`convo-tui export`) and the app call: the
session is masked first (facts.masked_session), so no format can leak a secret
the others would hide.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from convo_tui.core.cost.prices import PriceTable
from convo_tui.core.export.data import render_json
from convo_tui.core.export.facts import masked_session, session_facts
from convo_tui.core.export.html import render_html
from convo_tui.core.export.markdown import render_markdown
from convo_tui.core.model import Session

FORMATS = {"html": ".html", "md": ".md", "json": ".json"}


def render_export(
    session: Session,
    fmt: str,
    table: PriceTable,
    shown: Callable[[str], str] = lambda text: text,
    *,
    tags: Sequence[str] = (),
    description: str = "",
) -> str:
    """The session in `fmt` (html, md or json), every text through `shown` (the masking);
    `tags` and `description`, the user's own (the index's annotations), in its header."""
    masked = masked_session(session, shown)
    facts = session_facts(masked, table, tags=tuple(shown(tag) for tag in tags), description=shown(description))
    if fmt == "html":
        return render_html(masked, facts)
    if fmt == "md":
        return render_markdown(masked, facts)
    if fmt == "json":
        return render_json(masked, facts)
    raise ValueError(f"unknown export format {fmt!r} (html, md or json)")


def export_file_name(session: Session, fmt: str) -> str:
    """A file name that says what it holds: the title's words and the id's start."""
    words = "".join(ch if ch.isalnum() else "-" for ch in session.title.lower())
    stem = "-".join(part for part in words.split("-") if part)
    if len(stem) > 48:  # cut at a word
        stem = stem[:49].rsplit("-", 1)[0]
    stem = stem or "session"
    safe_id = "".join(ch for ch in session.id if ch.isalnum())[:8] or "id"
    return f"{stem}-{safe_id}{FORMATS[fmt]}"
