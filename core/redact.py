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
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
import math
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

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


@dataclass(frozen=True)
class _Rule:
    kind: str
    pattern: re.Pattern[str]
    # Cheap substring test on the lower-cased text: skip the regex when absent.
    needles: tuple[str, ...]
    group: int = 0  # which group is the secret (context around it stays visible)
    prefix: Callable[[str], str] | None = None
    show_tail: bool = True
    accept: Callable[[str], bool] | None = None


_B = r"(?<![A-Za-z0-9_\-])"  # token start: not glued to a word or identifier
_E = r"(?![A-Za-z0-9_\-])"  # token end


def _has_digit(value: str) -> bool:
    return any(c.isdigit() for c in value)


def _fixed(prefix: str) -> Callable[[str], str]:
    return lambda _value: prefix


def _prefix_match(pattern: str) -> Callable[[str], str]:
    compiled = re.compile(pattern)

    def prefix(value: str) -> str:
        found = compiled.match(value)
        return found.group(0) if found else ""

    return prefix


_PLACEHOLDERS = re.compile(
    r"""(?ix)
    (?: \*+ | x{3,} | \.{3,} | <[^>]*> | \$\{?[A-Za-z_][A-Za-z0-9_]*\}? | \{\{?[^}]*\}\}? | %\(?[A-Za-z_]*\)?s?
      | (?:your|example|dummy|fake|sample)[_-]?[a-z_-]* | changeme | placeholder | passw(?:or)?d
      | secret | token | none | null | true | false | undefined | redacted.* | \[redacted:[^\]]*\] )
    """
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[a-z]+(?:_[a-z]+)+|[A-Z]+(?:_[A-Z0-9]+)+")


def _plausible_credential(value: str) -> bool:
    """A value after `password=` or in a URL that is not a placeholder or code."""
    value = value.strip("\"'")
    if len(value) < 6 or _PLACEHOLDERS.fullmatch(value) or _IDENTIFIER.fullmatch(value):
        return False
    # A plain lower-case word is prose ("password: required"), unless long.
    return not (value.isalpha() and value.islower() and len(value) < 16)


def _plausible_assignment(value: str) -> bool:
    return len(value.strip("\"'")) >= 8 and _plausible_credential(value)


def _entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts: dict[str, int] = {}
    for c in value:
        counts[c] = counts.get(c, 0) + 1
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in counts.values())


_HEX_OR_UUID = re.compile(r"[0-9a-fA-F]+|[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")


def _random_looking(value: str) -> bool:
    """A long value that looks generated: mixed letters and digits, high entropy,
    and not a hex digest, UUID, path or dotted name (ids stay readable)."""
    value = value.strip("\"'")
    if len(value) < 20 or _HEX_OR_UUID.fullmatch(value) or ("/" in value.strip("/+") and value.count("/") > 2):
        return False
    if _PLACEHOLDERS.fullmatch(value) or _IDENTIFIER.fullmatch(value):
        return False
    classes = sum((any(c.islower() for c in value), any(c.isupper() for c in value), _has_digit(value)))
    return classes >= 3 and _entropy(value) >= 3.5


def _aws_secret_shape(value: str) -> bool:
    return _random_looking(value) or (
        len(value) == 40 and _has_digit(value) and any(c.isupper() for c in value) and any(c.islower() for c in value)
    )


_RULES: list[_Rule] = [
    # Most specific first: where two rules overlap, the earlier one wins.
    _Rule(
        "private-key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[ \t]*\r?\n?"
            r"((?:(?!-----END)[\s\S])*?)"
            r"(?=-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)"
            r"|-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[ \t]*\r?\n?([A-Za-z0-9+/=:\-, \t\r\n]+)"
        ),
        ("private key",),
        group=-1,
        show_tail=False,
    ),
    _Rule(
        "anthropic-key",
        re.compile(_B + r"sk-ant-[A-Za-z0-9_\-]{20,}+" + _E),
        ("sk-ant-",),
        prefix=_prefix_match(r"sk-ant-(?:[a-z]+\d\d-)?"),
    ),
    _Rule(
        "openai-key",
        re.compile(_B + r"sk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}+" + _E),
        ("sk-",),
        prefix=_prefix_match(r"sk-(?:proj-|svcacct-|admin-|None-)?"),
        accept=lambda v: _has_digit(v) and any(c.isupper() for c in v),
    ),
    _Rule(
        "stripe-key",
        re.compile(_B + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}+" + _E),
        ("_live_", "_test_"),
        prefix=_prefix_match(r"[a-z]+_[a-z]+_"),
    ),
    _Rule("google-api-key", re.compile(_B + r"AIza[0-9A-Za-z_\-]{35}" + _E), ("aiza",), prefix=_fixed("AIza")),
    _Rule(
        "aws-access-key-id",
        re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![A-Z0-9])"),
        ("akia", "asia", "abia", "acca"),
        prefix=lambda v: v[:4],
    ),
    _Rule(
        "aws-secret-key",
        re.compile(
            r"(?i:aws_?secret_?access_?key|secret_?access_?key|aws_?secret(?:_?key)?)[\"']?\s*(?::=|=>|[:=])\s*[\"']?"
            r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
        ),
        ("secret",),
        group=1,
        show_tail=False,
    ),
    _Rule(
        # In prose: "the secret is wJalr…", "secret key: wJalr…", "AWS secret wJalr…".
        "aws-secret-key",
        re.compile(
            r"(?<![A-Za-z0-9])(?i:secret(?:[ _-]?access)?(?:[ _-]?key)?)(?:\s+(?i:is|was|of|=|:))?[\s\"'`:=]{1,4}"
            r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
        ),
        ("secret",),
        group=1,
        show_tail=False,
        accept=_aws_secret_shape,
    ),
    _Rule(
        "github-token",
        re.compile(_B + r"(?:gh[pousr]_[A-Za-z0-9]{36,255}+|github_pat_[A-Za-z0-9_]{22,255}+)" + _E),
        ("gh", "github_pat_"),
        prefix=_prefix_match(r"github_pat_|gh[pousr]_"),
    ),
    _Rule(
        "gitlab-token",
        re.compile(_B + r"gl(?:pat|dt|rt|ptt|cbt)-[A-Za-z0-9_\-]{20,}+" + _E),
        ("gl",),
        prefix=_prefix_match(r"gl[a-z]+-"),
    ),
    _Rule(
        "slack-token",
        re.compile(_B + r"xox[abposre]-[A-Za-z0-9\-]{10,}+" + _E),
        ("xox",),
        prefix=_prefix_match(r"xox[a-z]-"),
        accept=_has_digit,
    ),
    _Rule(
        "slack-webhook",
        re.compile(r"hooks\.slack\.com/services/(T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,})"),
        ("hooks.slack.com",),
        group=1,
        show_tail=False,
    ),
    _Rule("huggingface-token", re.compile(_B + r"hf_[A-Za-z0-9]{30,}+" + _E), ("hf_",), prefix=_fixed("hf_"), accept=_has_digit),
    _Rule(
        "jwt",
        re.compile(_B + r"eyJ[A-Za-z0-9_\-]{8,}+\.eyJ[A-Za-z0-9_\-]{8,}+\.[A-Za-z0-9_\-]{8,}+" + _E),
        ("eyj",),
        prefix=_fixed("eyJ"),
    ),
    _Rule(
        "bearer-token",
        re.compile(r"(?<![A-Za-z0-9])(?i:bearer)[ \t]+([A-Za-z0-9\-._~+/]{16,}+=*)(?![A-Za-z0-9\-._~+/=])"),
        ("bearer",),
        group=1,
        show_tail=False,
        accept=_has_digit,
    ),
    _Rule(
        "basic-auth",
        re.compile(r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?i:basic)[ \t]+([A-Za-z0-9+/]{8,}+={0,2})"),
        ("basic",),
        group=1,
        show_tail=False,
    ),
    _Rule(
        "url-password",
        re.compile(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{1,20}://[^\s:/@?#\"'<>]{0,128}:([^\s/@?#\"'<>]{1,256})@"),
        ("://",),
        group=1,
        show_tail=False,
        accept=_plausible_credential,
    ),
    _Rule(
        "password",
        re.compile(
            r"(?<![A-Za-z0-9])(?i:password|passwd|passphrase|pass)[\"']?\s*(?::=|=>|[:=])\s*[\"']?"
            r"([^\s\"'`,;()\[\]{}<>]{6,256}+)(?=$|[\s\"'`,;)])"
        ),
        ("pass",),
        group=1,
        show_tail=False,
        accept=_plausible_credential,
    ),
    _Rule(
        "secret",
        re.compile(
            r"(?<![A-Za-z0-9])(?i:api[_-]?key|secret(?:[_-]?key)?|client[_-]?secret|(?:access|auth|refresh|api|private)[_-]?token|token)"
            r"[\"']?\s*(?::=|=>|[:=])\s*[\"']?([^\s\"'`,;()\[\]{}<>]{8,256}+)(?=$|[\s\"'`,;)])"
        ),
        ("key", "secret", "token"),
        group=1,
        show_tail=False,
        accept=_plausible_assignment,
    ),
]

_RULES.append(
    _Rule(
        # A credential word, a few words of prose, then a long generated-looking
        # value: "my api key is Zq8Xw3…", "token for staging: 7f3Kq9Zx…".
        "secret",
        re.compile(
            r"(?<![A-Za-z0-9])(?i:api[ _-]?key|secret|token|password|passwd|credential|access[ _-]?key)s?"
            r"(?:[ \t]+[A-Za-z]{1,12}){0,3}[ \t]*[:=]?[ \t]*[\"'`]?"
            r"([A-Za-z0-9_\-+/=.~]{20,256}+)(?![A-Za-z0-9_\-+/=.~])"
        ),
        ("key", "secret", "token", "passw", "credential"),
        group=1,
        show_tail=False,
        accept=_random_looking,
    )
)

KINDS: tuple[str, ...] = tuple(dict.fromkeys(rule.kind for rule in _RULES))

# Within this many characters of an AWS access key id, a 40-character value of
# the secret key's alphabet is taken as its secret key, even with no label.
_AWS_PAIR_WINDOW = 240
_AWS_SECRET_NEAR = re.compile(r"(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])")


def _aws_pairs(text: str, taken: list[Secret]) -> Iterable[Secret]:
    for secret in taken:
        if secret.kind != "aws-access-key-id":
            continue
        lo, hi = max(0, secret.start - _AWS_PAIR_WINDOW), min(len(text), secret.end + _AWS_PAIR_WINDOW)
        for found in _AWS_SECRET_NEAR.finditer(text, lo, hi):
            value = found.group(1)
            if _aws_secret_shape(value):
                yield Secret(found.start(1), found.end(1), "aws-secret-key", value, "", False)


def _matches(rule: _Rule, text: str) -> Iterable[Secret]:
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


def find_secrets(text: str) -> list[Secret]:
    """Every secret in `text`, in order, without overlaps (specific kinds win)."""
    if not text:
        return []
    lowered = text.lower()
    starts: list[int] = []  # accepted spans, kept sorted by start
    taken: list[Secret] = []
    for rule in _RULES:
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
    masked first, then one line, then cut to `limit` characters.

    Masking before the cut is what keeps a secret from escaping: a value cut
    short no longer matches its pattern, and a marker computed on the cut would
    show the wrong characters. A cut never splits a marker either.
    """
    return shorten(" ".join(redact(text, reveal).split()), limit)


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
