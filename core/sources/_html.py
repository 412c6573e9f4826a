"""HTML message bodies reduced to plain text, so that search sees words, not tags."""

from __future__ import annotations

import re
from html.parser import HTMLParser

# Tags that make a paragraph (blank line around them) and tags that only start a line.
_BLOCK = {
    "address",
    "article",
    "aside",
    "blockquote",
    "div",
    "dl",
    "figcaption",
    "figure",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "ul",
}
_LINE = {"br", "dd", "dt", "li", "tr"}
_SKIP = {"script", "style", "head", "template"}
_CELL = {"td", "th"}


class _TextCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0
        self.pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self.skipping += 1
        elif tag in _BLOCK:
            self.parts.append("\n\n")
            if tag == "pre":
                self.pre += 1
        elif tag in _LINE:
            self.parts.append("\n- " if tag == "li" else "\n")
        elif tag in _CELL:
            self.parts.append("\t")
        elif tag == "img":
            alt = dict(attrs).get("alt")
            if alt:
                self.parts.append(f"[{alt}]")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in _SKIP:
            self.skipping -= 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skipping = max(0, self.skipping - 1)
        elif tag in _BLOCK:
            self.parts.append("\n\n")
            if tag == "pre":
                self.pre = max(0, self.pre - 1)

    def handle_data(self, data: str) -> None:
        if self.skipping:
            return
        if self.pre:
            self.parts.append(data)
        else:
            self.parts.append(re.sub(r"\s+", " ", data))


def html_to_text(html: str) -> str:
    """Visible text with block tags as line breaks and entities unescaped."""
    collector = _TextCollector()
    collector.feed(html)
    collector.close()
    lines = [line.strip(" \t") for line in "".join(collector.parts).split("\n")]
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()
