"""Mask secrets that people paste into chats before they reach a screen or a file.

Transcripts hold API keys, tokens, private keys and database URLs; the app,
copies and exports show text through `redact()` (on by default, setting
`redact`). A marker keeps what helps recognise a secret without giving it away:

    [REDACTED:openai-key sk-proj-…Q7xZ]   public prefix + last 4 (high-entropy tokens)
    [REDACTED:password]                   nothing at all (may be a weak, human secret)

Showing a vendor's public prefix and the last four characters is what the
vendors' own dashboards do; for passwords, URL credentials and assignments
nothing of the value is kept. Context stays readable: only the value is
replaced (`postgres://alice:[REDACTED:url-password]@db`, `Bearer [REDACTED:...]`,
the BEGIN/END lines of a private key block).

`reveal` un-masks chosen secrets on demand: pass a secret's value or its `id`
(from `find_secrets`). Ids are keyed hashes with a per-process random key, so
they tell two secrets apart within a run but say nothing about the value.
The kinds of secret and how each is recognised: core/secret_rules.py.
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from convo_tui.core.secret_rules import AWS_PAIR_WINDOW, AWS_SECRET_NEAR, RULES, Rule, aws_secret_shape
from convo_tui.core.unicode import without_controls

# Per-process key for secret ids: stable within a run, useless to guess a value.
_ID_KEY = os.urandom(16)


@dataclass(frozen=True)
class Secret:
    start: int
    end: int
    kind: str
    value: str
    # The public prefix a marker may show ("sk-proj-"); "" when nothing may be shown.
    prefix: str = ""
    # Whether the last four characters may be shown (long random tokens only).
    show_tail: bool = False

    @property
    def id(self) -> str:
        return hmac.new(_ID_KEY, self.value.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:12]

    @property
    def marker(self) -> str:
        hint = ""
        if self.show_tail and len(self.value) >= len(self.prefix) + 12:
            hint = f" {self.prefix}…{self.value[-4:]}"
        return f"[REDACTED:{self.kind}{hint}]"


def _aws_pairs(text: str, taken: list[Secret]) -> Iterable[Secret]:
    for secret in taken:
        if secret.kind != "aws-access-key-id":
            continue
        lo, hi = max(0, secret.start - AWS_PAIR_WINDOW), min(len(text), secret.end + AWS_PAIR_WINDOW)
        for found in AWS_SECRET_NEAR.finditer(text, lo, hi):
            value = found.group(1)
            if aws_secret_shape(value):
                yield Secret(found.start(1), found.end(1), "aws-secret-key", value, "", False)


def _matches(rule: Rule, text: str) -> Iterable[Secret]:
    for found in rule.pattern.finditer(text):
        if rule.group == -1:  # the first group that took part (alternatives)
            index = next((i for i in range(1, (rule.pattern.groups or 0) + 1) if found.group(i) is not None), 0)
        else:
            index = rule.group
        start, end = found.span(index)
        value = text[start:end]
        if rule.group == -1:  # a block body: keep its surrounding newlines visible
            stripped = value.strip()
            if not stripped:
                continue
            start += value.index(stripped)
            end = start + len(stripped)
            value = stripped
        if not value or (rule.accept is not None and not rule.accept(value)):
            continue
        yield Secret(start, end, rule.kind, value, rule.prefix(value) if rule.prefix else "", rule.show_tail)


# Any rule's needle: most texts hold none, and one search for all of them costs
# a fifth of asking each rule (2 against 10 us a title: `convo-tui sessions` masks
# 42k titles twice at a million messages).
_ANY_NEEDLE = re.compile("|".join(re.escape(n) for n in sorted({n for r in RULES for n in r.needles}, key=len, reverse=True)))


def find_secrets(text: str) -> list[Secret]:
    """Every secret in `text`, in order, without overlaps (specific kinds win)."""
    if not text:
        return []
    lowered = text.lower()
    if _ANY_NEEDLE.search(lowered) is None:
        return []  # no rule would look further
    starts: list[int] = []  # accepted spans, kept sorted by start
    taken: list[Secret] = []
    for rule in RULES:
        if not any(needle in lowered for needle in rule.needles):
            continue
        for secret in _matches(rule, text):
            at = bisect.bisect_left(starts, secret.start)
            if at > 0 and taken[at - 1].end > secret.start:
                continue
            if at < len(taken) and taken[at].start < secret.end:
                continue
            starts.insert(at, secret.start)
            taken.insert(at, secret)
    for secret in list(_aws_pairs(text, taken)):
        at = bisect.bisect_left(starts, secret.start)
        if (at > 0 and taken[at - 1].end > secret.start) or (at < len(taken) and taken[at].start < secret.end):
            continue
        starts.insert(at, secret.start)
        taken.insert(at, secret)
    return taken


def redact(text: str, reveal: set[str] | frozenset[str] | None = None) -> str:
    """`text` with every secret replaced by its marker, except those in `reveal`.

    `reveal` holds secret values or `Secret.id`s to leave in clear.
    """
    secrets = find_secrets(text)
    if not secrets:
        return text
    reveal = reveal or set()
    parts: list[str] = []
    cursor = 0
    for secret in secrets:
        if secret.value in reveal or secret.id in reveal:
            continue
        parts.append(text[cursor : secret.start])
        parts.append(secret.marker)
        cursor = secret.end
    parts.append(text[cursor:])
    return "".join(parts)


def has_secrets(text: str) -> bool:
    return bool(find_secrets(text))


def display(text: str, limit: int | None = None, reveal: set[str] | frozenset[str] | None = None) -> str:
    """What a face may show of a title, summary, header or argument: secrets
    masked first (terminal control gone before), then one line, then cut to `limit` characters.

    Masking before the cut is what keeps a secret from escaping: a value cut
    short no longer matches its pattern, and a marker computed on the cut would
    show the wrong characters. A cut never splits a marker either.
    """
    return shorten(" ".join(redact(without_controls(text), reveal).split()), limit)


def shorten(masked: str, limit: int | None) -> str:
    """`masked` (already through redact) cut to `limit` characters with an
    ellipsis, never inside a marker: the whole marker or none of it."""
    if limit is None or len(masked) <= limit:
        return masked
    cut = masked[: max(0, limit - 1)]
    opened = cut.rfind("[REDACTED:")
    if opened != -1 and "]" not in cut[opened:]:
        cut = cut[:opened].rstrip()
    return cut + "…"
