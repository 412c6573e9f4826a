"""A session as one self-contained HTML page.

No network: the styles and a few lines of script are inline, and a Content
Security Policy forbids the page from loading anything else. Thinking and tool
calls fold away (`<details>`); code blocks and tool arguments are highlighted
by Pygments; light or dark follows the reader's `prefers-color-scheme`. Every
text is escaped: a transcript's own HTML is shown, never run.
"""

from __future__ import annotations

import json
import re
from functools import cache
from html import escape

from convo_tui.core.export.facts import SessionFacts, args_hint, aside, header_rows, when
from convo_tui.core.model import Message, Session, ToolCall
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

# Words, not emoji: the page must read the same on a machine without an emoji font.
ROLE_LABEL = {"user": "User", "assistant": "AI", "system": "System"}
# A fenced block: ``` or ~~~ (three or more), an optional language, the code, the same fence.
_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[\w+#.-]*)[^\n]*\n(?P<code>.*?)^(?P=fence)[ \t]*$", re.M | re.S)
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

PAGE_CSS = """
:root { --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --panel: #f6f8fa;
  --user: #ddf4ff; --ai: #ffffff; --accent: #0969da; --code-bg: #f6f8fa; color-scheme: light dark; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --panel: #151b23;
    --user: #102a43; --ai: #0d1117; --accent: #4493f8; --code-bg: #151b23; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 60rem; padding: 1.5rem 1rem 3rem; background: var(--bg); color: var(--fg);
  font: 15px/1.55 -apple-system, BlinkMacSystemFont, "Segoe UI", Helvetica, Arial, sans-serif; }
h1 { font-size: 1.5rem; margin: 0 0 .75rem; overflow-wrap: anywhere; }
h2 { font-size: 1rem; margin: 2rem 0 .5rem; padding-bottom: .25rem; border-bottom: 1px solid var(--line); }
h2 a { color: inherit; text-decoration: none; }
time, .muted { color: var(--muted); font-weight: normal; font-size: .9em; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0 0 1rem;
  padding: .75rem 1rem; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
nav.controls button { font: inherit; color: var(--fg); background: var(--panel); border: 1px solid var(--line);
  border-radius: 6px; padding: .2rem .7rem; cursor: pointer; margin-right: .4rem; }
article.message { border: 1px solid var(--line); border-radius: 8px; padding: .6rem .9rem; margin: .6rem 0; }
article.user { background: var(--user); }
article.assistant { background: var(--ai); }
article.aside { border-style: dashed; opacity: .85; }
.role { font-weight: 600; margin-bottom: .3rem; }
.kind { font-size: .75rem; text-transform: uppercase; letter-spacing: .05em; border: 1px solid var(--line);
  border-radius: 4px; padding: 0 .3rem; color: var(--muted); }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; }
.text code, summary code { background: var(--code-bg); padding: .05rem .3rem; border-radius: 4px; }
pre { background: var(--code-bg); border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem;
  overflow-x: auto; white-space: pre; margin: .5rem 0; line-height: 1.4; }
details { border: 1px solid var(--line); border-radius: 6px; margin: .5rem 0; padding: .3rem .7rem; background: var(--panel); }
details > summary { cursor: pointer; color: var(--muted); }
details[open] > summary { margin-bottom: .3rem; }
details.thinking .text { font-style: italic; color: var(--muted); }
.label { font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin-top: .4rem; }
footer { margin-top: 2.5rem; color: var(--muted); font-size: .85rem; border-top: 1px solid var(--line); padding-top: .6rem; }
"""

# Expand / collapse every fold; a link ending in #expanded opens the page with every fold open.
SCRIPT = """
function setAll(open) { document.querySelectorAll("details").forEach(function (d) { d.open = open; }); }
document.querySelectorAll("[data-toggle]").forEach(function (button) {
  button.addEventListener("click", function () { setAll(button.dataset.toggle === "open"); });
});
if (location.hash === "#expanded") { setAll(true); }
"""


@cache
def code_css() -> str:
    """Pygments' classes for light pages, and for dark ones inside the media query."""

    def rules(style: str) -> str:
        lines = HtmlFormatter(style=style).get_style_defs(".hl").splitlines()
        # the token classes only: the block's own background and colour are the page's
        return "\n".join(line for line in lines if line.startswith(".hl .") and not line.startswith(".hl .hll"))

    return f"{rules('default')}\n@media (prefers-color-scheme: dark) {{\n{rules('github-dark')}\n}}\n"


def code_block(code: str, language: str = "") -> str:
    """Highlighted when the language is known; plain (escaped) otherwise: never a guess."""
    try:
        lexer = get_lexer_by_name(language) if language else None
    except ClassNotFound:
        lexer = None
    if lexer is None:
        return f'<pre class="hl"><code>{escape(code)}</code></pre>'
    body = highlight(code, lexer, HtmlFormatter(nowrap=True))
    return f'<pre class="hl"><code class="language-{escape(language)}">{body}</code></pre>'


def _inline(text: str) -> str:
    """Escaped prose with `inline code` kept as code; line breaks stay (pre-wrap)."""
    out, at = [], 0
    for match in _INLINE_CODE.finditer(text):
        out.append(escape(text[at : match.start()]))
        out.append(f"<code>{escape(match.group(1))}</code>")
        at = match.end()
    out.append(escape(text[at:]))
    return "".join(out)


def rich_text(text: str) -> str:
    """A message's text: prose, and fenced code blocks highlighted."""
    parts, at = [], 0
    for match in _FENCE.finditer(text):
        prose = text[at : match.start()].strip("\n")
        if prose.strip():
            parts.append(f'<div class="text">{_inline(prose)}</div>')
        parts.append(code_block(match.group("code").rstrip("\n"), match.group("lang")))
        at = match.end()
    rest = text[at:].strip("\n")
    if rest.strip():
        parts.append(f'<div class="text">{_inline(rest)}</div>')
    return "\n".join(parts)


def tool_html(tool: ToolCall) -> str:
    hint = args_hint(tool.args)
    summary = f'<span class="kind">Tool</span> <code>{escape(tool.name)}</code>' + (
        f' <span class="muted">{escape(hint)}</span>' if hint else ""
    )
    parts = [f'<details class="tool"><summary>{summary}</summary>']
    if tool.args:
        parts.append('<div class="label">Arguments</div>')
        parts.append(code_block(json.dumps(tool.args, ensure_ascii=False, indent=2), "json"))
    if tool.result:
        parts.append('<div class="label">Result</div>')
        parts.append(f"<pre><code>{escape(tool.result)}</code></pre>")
    parts.append("</details>")
    return "\n".join(parts)


def message_html(message: Message) -> str:
    kind = aside(message)
    classes = f"message {escape(message.role)}" + (" aside" if kind else "")
    label = ROLE_LABEL.get(message.role, escape(message.role))
    model = message.meta.get("model")
    head = label + (f' <span class="muted">· {escape(model)}</span>' if isinstance(model, str) and model else "")
    head += f' <span class="muted">· {escape(kind)}</span>' if kind else ""
    head += f" <time>{when(message.timestamp)}</time>" if message.timestamp else ""
    parts = [f'<article class="{classes}" id="m-{escape(message.id)}">', f'<div class="role">{head}</div>']
    if message.thinking.strip():
        parts.append(
            f'<details class="thinking"><summary><span class="kind">Thinking</span></summary>{rich_text(message.thinking)}</details>'
        )
    if message.text.strip():
        parts.append(rich_text(message.text))
    parts += [tool_html(tool) for tool in message.tools]
    parts.append("</article>")
    return "\n".join(parts)


def facts_html(facts: SessionFacts) -> str:
    rows = header_rows(facts)
    cells = "\n".join(f"<dt>{escape(name)}</dt><dd>{escape(value)}</dd>" for name, value in rows)
    return f'<dl class="facts">\n{cells}\n</dl>'


def render_html(session: Session, facts: SessionFacts) -> str:
    """The page; `session` is already masked (core/export/facts.py)."""
    turns = {turn.index: turn for turn in session.turns}
    sections = []
    for index, messages in session.turn_groups():
        if index is None:
            sections.append('<section class="turn lead">')
        else:
            stamp = turns[index].timestamp
            time_tag = f" <time>{when(stamp)}</time>" if stamp else ""
            sections.append(
                f'<section class="turn" id="turn-{index}">\n<h2><a href="#turn-{index}">Turn {index}</a>{time_tag}</h2>'
            )
        sections += [message_html(message) for message in messages]
        sections.append("</section>")
    title = escape(facts.title)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="generator" content="convo-tui">
<title>{title} · convo-tui</title>
<style>{PAGE_CSS}{code_css()}</style>
</head>
<body>
<header class="session">
<h1>{title}</h1>
{facts_html(facts)}
<nav class="controls"><button type="button" data-toggle="open">Expand all</button><button type="button" data-toggle="close">Collapse all</button></nav>
</header>
<main>
{chr(10).join(sections)}
</main>
<footer>Exported by convo-tui. Secrets found in the text are masked ([REDACTED:…]).</footer>
<script>{SCRIPT}</script>
</body>
</html>
"""
