"""core/export: one session as a self-contained HTML page, GitHub Markdown and JSON.

The HTML is parsed with the standard library's parser and its structure
checked: header facts, one section per turn, one article per message, folds for
thinking and tool calls, highlighted code, nothing loaded from anywhere, and
no secret or raw markup from the transcript.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

from convo_tui.cli.main import main
from convo_tui.core.cost.prices import PriceTable
from convo_tui.core.export import export_file_name, render_export
from convo_tui.core.model import Message, ToolCall
from convo_tui.core.redact import redact
from convo_tui.core.sources import parse_path

from tests.paths import FIXTURES

SESSION_FILE = FIXTURES / "export" / "5b1e9d2c-4f3a-4c7e-8a6b-0d9e8f7a6b5c.jsonl"
SECRET = "sk_live_51FakeDemoKeyOnly0000000000000000abcd"


def fixture_session():
    (session,) = parse_path(SESSION_FILE)
    return session


class Page(HTMLParser):
    """Elements with their attributes and the text inside each, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str], list[str]]] = []
        self.open: list[int] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {k: v or "" for k, v in attrs}, []))
        if tag not in ("meta", "br", "link", "img", "input"):
            self.open.append(len(self.elements) - 1)

    def handle_endtag(self, tag):
        while self.open:
            index = self.open.pop()
            if self.elements[index][0] == tag:
                break

    def handle_data(self, data):
        self.text.append(data)
        for index in self.open:
            self.elements[index][2].append(data)

    def find(self, tag: str, cls: str | None = None) -> list[tuple[dict[str, str], str]]:
        return [
            (attrs, "".join(texts))
            for name, attrs, texts in self.elements
            if name == tag and (cls is None or cls in attrs.get("class", "").split())
        ]


def parsed(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


def test_html_page_structure():
    html = render_export(fixture_session(), "html", PriceTable(), redact)
    page = parsed(html)
    assert html.startswith("<!DOCTYPE html>")
    (title,) = page.find("h1")
    assert title[1] == "The checkout total is off by a cent for some carts. Fix the rounding."
    facts = dict(zip([t for _, t in page.find("dt")], [t for _, t in page.find("dd")], strict=True))
    assert facts["Tool"] == "Claude Code" and facts["Project"] == "shopfront"
    assert facts["Model"] == "claude-sonnet-4-5-20250929"
    assert facts["Started"] == "2026-02-16 10:00 UTC" and facts["Updated"] == "2026-02-16 10:02 UTC"
    assert facts["Tokens"] == "57,788 in / 585 out (54,800 cache read, 2,970 cache write)"
    assert facts["Cost"] == "$0.04"
    assert facts["Session id"] == "5b1e9d2c-4f3a-4c7e-8a6b-0d9e8f7a6b5c"
    assert [attrs["id"] for attrs, _ in page.find("section", "turn")] == ["turn-0", "turn-1"]
    roles = [attrs["class"] for attrs, _ in page.find("article")]
    assert roles == [
        "message user",
        "message assistant",
        "message assistant",
        "message user",
        "message assistant",
        "message assistant",
    ]
    (thinking,) = page.find("details", "thinking")
    assert "A cent off points at float sums." in thinking[1]
    tools = page.find("details", "tool")
    assert [re.sub(r"\s+", " ", text).split(" {")[0].strip() for _, text in tools][:1] == [
        "Tool Read /home/lee/code/shopfront/src/cart.py Arguments"
    ]
    assert "3 passed in 0.04s" in tools[1][1] and '"command": "pytest tests/test_cart.py -q"' in tools[1][1]
    # Pygments: the Python block and the JSON arguments are highlighted (token spans inside <pre class="hl">)
    assert [attrs["class"] for attrs, _ in page.find("code") if attrs.get("class", "").startswith("language-")] == [
        "language-json",
        "language-python",
        "language-json",
    ]
    assert any(name == "span" and attrs.get("class") == "k" for name, attrs, _ in page.elements)  # a keyword (def, from)


def test_html_page_is_self_contained_and_themed():
    html = render_export(fixture_session(), "html", PriceTable(), redact)
    page = parsed(html)
    for name, attrs, _ in page.elements:
        assert ("src" not in attrs and "href" not in attrs) or attrs.get("href", "").startswith("#"), (name, attrs)
    assert not page.find("link") and not page.find("img") and not page.find("iframe")
    (csp,) = [attrs for attrs, _ in page.find("meta") if attrs.get("http-equiv") == "Content-Security-Policy"]
    assert csp["content"].startswith("default-src 'none'")
    ((_, style),) = page.find("style")
    assert "@media (prefers-color-scheme: dark)" in style and ".hl .k" in style
    ((_, script),) = page.find("script")
    assert "data-toggle" in script and len(script.strip().splitlines()) <= 8
    assert [text for _, text in page.find("button")] == ["Expand all", "Collapse all"]


def test_secrets_are_masked_in_every_format():
    session = fixture_session()
    for fmt in ("html", "md", "json"):
        text = render_export(session, fmt, PriceTable(), redact)
        assert SECRET not in text, fmt
        assert "[REDACTED:stripe-key sk_live_…abcd]" in text, fmt
    assert SECRET in render_export(session, "md", PriceTable())  # unmasked only when asked


def test_transcript_markup_is_shown_never_run():
    session = fixture_session()
    hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    session.messages[0] = replace(session.messages[0], text=hostile)
    session.messages[1].tools.append(ToolCall("</details><script>", {"a": "</pre><b>"}, "<iframe>"))
    page = parsed(render_export(session, "html", PriceTable()))
    assert len(page.find("script")) == 1 and not page.find("img") and not page.find("iframe") and not page.find("b")
    assert hostile in "".join(page.text)


def test_markdown_renders_on_github():
    md = render_export(fixture_session(), "md", PriceTable(), redact)
    assert md.startswith("# The checkout total is off by a cent for some carts. Fix the rounding.\n\n| | |\n|---|---|\n")
    assert "| Cost | $0.04 |" in md and "| Model | claude-sonnet-4-5-20250929 |" in md
    assert re.findall(r"^## Turn \d+", md, re.M) == ["## Turn 0", "## Turn 1"]
    assert md.count("<details>") == md.count("</details>") == 3  # thinking and two tool calls
    assert "<summary>Thinking</summary>\n\nA cent off" in md  # blank line: GitHub renders Markdown inside
    assert "```python\nfrom decimal import ROUND_HALF_UP, Decimal" in md


def test_markdown_fences_outlast_the_backticks_inside():
    session = fixture_session()
    session.messages[1].tools[0].result = "a ``` fence and a ```` longer one"
    md = render_export(session, "md", PriceTable())
    assert "`````\na ``` fence and a ```` longer one\n`````" in md


def test_json_export_is_show_json_plus_usage_and_cost():
    data = json.loads(render_export(fixture_session(), "json", PriceTable(), redact))
    assert set(data) == {"session", "messages", "turns", "export"}
    assert data["session"]["id"] == "5b1e9d2c-4f3a-4c7e-8a6b-0d9e8f7a6b5c"
    assert len(data["turns"]) == 2
    # 18 fresh x $3 + 54,800 reads x $0.30 + 2,970 writes x $3.75 + 585 out x $15 (per million)
    assert data["export"]["cost_usd"] == 0.0364065
    assert data["export"]["usage"] == {"input": 18, "cache_read": 54800, "cache_write": 2970, "cache_write_1h": 0, "output": 585}


def test_a_session_without_usage_says_so():
    session = fixture_session()
    session.messages = [replace(m, meta={}) for m in session.messages] + [Message("x", "user", "more")]
    page = parsed(render_export(session, "html", PriceTable()))
    facts = dict(zip([t for _, t in page.find("dt")], [t for _, t in page.find("dd")], strict=True))
    assert facts["Tokens"] == "not recorded by this tool" and "Cost" not in facts


def test_file_names_say_what_they_hold():
    session = fixture_session()
    assert export_file_name(session, "html") == "the-checkout-total-is-off-by-a-cent-for-some-5b1e9d2c.html"
    assert export_file_name(replace(session, title="???", id="../x"), "md") == "session-x.md"


def test_cli_exports_a_transcript_file(tmp_path: Path, capsys):
    target = tmp_path / "page.html"
    assert main(["export", str(SESSION_FILE), "-o", str(target)]) == 0
    assert "exported 5b1e9d2c-4f3a-4c7e-8a6b-0d9e8f7a6b5c (html" in capsys.readouterr().err
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>") and target.stat().st_mode & 0o777 == 0o600
    assert main(["export", str(SESSION_FILE), "--format", "md"]) == 0
    assert capsys.readouterr().out.startswith("# The checkout total")
    assert main(["export", str(SESSION_FILE), "-o", str(tmp_path / "s.json")]) == 0  # the format from the suffix
    assert json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))["export"]["tool"] == "Claude Code"


def test_a_title_cut_from_the_first_question_is_whole_in_the_pages_heading():
    from convo_tui.core.export.facts import PAGE_TITLE_LIMIT
    from convo_tui.core.sources._common import title_from_messages

    session = fixture_session()
    question = "Why does the nightly export job " + "retry the upload step and then fail " * 4 + "on Sundays only?"
    first = next(m for m in session.messages if m.role == "user" and m.is_conversation)
    messages = [replace(m, text=question + "\nmore context") if m is first else m for m in session.messages]
    session = replace(session, messages=messages, _turns=None)
    session = replace(session, title=title_from_messages(session.messages, "x"))
    assert session.title.endswith("…") and len(session.title) == 80  # what cards show
    page = render_export(session, "md", PriceTable({}))
    assert page.startswith(f"# {question}\n")
    assert parsed(render_export(session, "html", PriceTable({}))).find("h1")[0][1] == question
    renamed = replace(session, title="Sunday export failures…")  # the user's own title: as it is
    assert render_export(renamed, "md", PriceTable({})).startswith("# Sunday export failures…\n")
    asked = next(m for m in session.messages if m.role == "user" and m.is_conversation)
    longer = [replace(m, text="word " * 200) if m is asked else m for m in session.messages]
    long = replace(session, messages=longer, _turns=None)
    long = replace(long, title=title_from_messages(long.messages, "x"))
    heading = render_export(long, "md", PriceTable({})).splitlines()[0]
    assert len(heading) == len("# ") + PAGE_TITLE_LIMIT and heading.endswith("…")


def test_the_users_tags_and_description_are_shown_never_obeyed():
    page = render_export(fixture_session(), "md", PriceTable({}), tags=["a\x1b]0;X\x07"], description="undo\x1b[2J it")
    assert "\x1b" not in page and "\x07" not in page
    assert "| Description | undo\\x1b[2J it |" in page and "#a\\x1b]0;X\\x07" in page
