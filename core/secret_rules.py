"""The kinds of secret that `redact` masks: one rule per kind (its pattern, the cheap
substring test that skips it, which group is the secret, what a marker may show)
and the shape tests that tell a real token from a placeholder or an identifier.
Most specific first: where two rules overlap, the earlier one wins (core/redact.py)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class Rule:
    kind: str
    source: str  # the regular expression, compiled the first time a needle is found
    # Cheap substring test on the lower-cased text: skip the regex when absent.
    needles: tuple[str, ...]
    group: int = 0  # which group is the secret (context around it stays visible)
    prefix: Callable[[str], str] | None = None
    show_tail: bool = True
    accept: Callable[[str], bool] | None = None

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """Compiled on first use: most commands mask texts that hold no needle of
        most rules, and compiling all of them cost every command 5 ms at start."""
        return re.compile(self.source)


_B = r"(?<![A-Za-z0-9_\-])"  # token start: not glued to a word or identifier
_E = r"(?![A-Za-z0-9_\-])"  # token end


def _has_digit(value: str) -> bool:
    return any(c.isdigit() for c in value)


def _fixed(prefix: str) -> Callable[[str], str]:
    return lambda _value: prefix


def _prefix_match(pattern: str) -> Callable[[str], str]:
    def prefix(value: str) -> str:
        found = re.match(pattern, value)  # compiled once, by re's own cache
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


def aws_secret_shape(value: str) -> bool:
    return _random_looking(value) or (
        len(value) == 40 and _has_digit(value) and any(c.isupper() for c in value) and any(c.islower() for c in value)
    )


RULES: list[Rule] = [
    # Most specific first: where two rules overlap, the earlier one wins.
    Rule(
        "private-key",
        (
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[ \t]*\r?\n?"
            r"((?:(?!-----END)[\s\S])*?)"
            r"(?=-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)"
            r"|-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[ \t]*\r?\n?([A-Za-z0-9+/=:\-, \t\r\n]+)"
        ),
        ("private key",),
        group=-1,
        show_tail=False,
    ),
    Rule(
        "anthropic-key",
        (_B + r"sk-ant-[A-Za-z0-9_\-]{20,}+" + _E),
        ("sk-ant-",),
        prefix=_prefix_match(r"sk-ant-(?:[a-z]+\d\d-)?"),
    ),
    Rule(
        "openai-key",
        (_B + r"sk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}+" + _E),
        ("sk-",),
        prefix=_prefix_match(r"sk-(?:proj-|svcacct-|admin-|None-)?"),
        accept=lambda v: _has_digit(v) and any(c.isupper() for c in v),
    ),
    Rule(
        "stripe-key",
        (_B + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}+" + _E),
        ("_live_", "_test_"),
        prefix=_prefix_match(r"[a-z]+_[a-z]+_"),
    ),
    Rule("google-api-key", (_B + r"AIza[0-9A-Za-z_\-]{35}" + _E), ("aiza",), prefix=_fixed("AIza")),
    Rule(
        "aws-access-key-id",
        (r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![A-Z0-9])"),
        ("akia", "asia", "abia", "acca"),
        prefix=lambda v: v[:4],
    ),
    Rule(
        "aws-secret-key",
        (
            r"(?i:aws_?secret_?access_?key|secret_?access_?key|aws_?secret(?:_?key)?)[\"']?\s*(?::=|=>|[:=])\s*[\"']?"
            r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
        ),
        ("secret",),
        group=1,
        show_tail=False,
    ),
    Rule(
        # In prose: "the secret is wJalr…", "secret key: wJalr…", "AWS secret wJalr…".
        "aws-secret-key",
        (
            r"(?<![A-Za-z0-9])(?i:secret(?:[ _-]?access)?(?:[ _-]?key)?)(?:\s+(?i:is|was|of|=|:))?[\s\"'`:=]{1,4}"
            r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
        ),
        ("secret",),
        group=1,
        show_tail=False,
        accept=aws_secret_shape,
    ),
    Rule(
        "github-token",
        (_B + r"(?:gh[pousr]_[A-Za-z0-9]{36,255}+|github_pat_[A-Za-z0-9_]{22,255}+)" + _E),
        ("gh", "github_pat_"),
        prefix=_prefix_match(r"github_pat_|gh[pousr]_"),
    ),
    Rule(
        "gitlab-token",
        (_B + r"gl(?:pat|dt|rt|ptt|cbt)-[A-Za-z0-9_\-]{20,}+" + _E),
        ("gl",),
        prefix=_prefix_match(r"gl[a-z]+-"),
    ),
    Rule(
        "slack-token",
        (_B + r"xox[abposre]-[A-Za-z0-9\-]{10,}+" + _E),
        ("xox",),
        prefix=_prefix_match(r"xox[a-z]-"),
        accept=_has_digit,
    ),
    Rule(
        "slack-webhook",
        (r"hooks\.slack\.com/services/(T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,})"),
        ("hooks.slack.com",),
        group=1,
        show_tail=False,
    ),
    Rule("huggingface-token", (_B + r"hf_[A-Za-z0-9]{30,}+" + _E), ("hf_",), prefix=_fixed("hf_"), accept=_has_digit),
    Rule(
        "jwt",
        (_B + r"eyJ[A-Za-z0-9_\-]{8,}+\.eyJ[A-Za-z0-9_\-]{8,}+\.[A-Za-z0-9_\-]{8,}+" + _E),
        ("eyj",),
        prefix=_fixed("eyJ"),
    ),
    Rule(
        "bearer-token",
        (r"(?<![A-Za-z0-9])(?i:bearer)[ \t]+([A-Za-z0-9\-._~+/]{16,}+=*)(?![A-Za-z0-9\-._~+/=])"),
        ("bearer",),
        group=1,
        show_tail=False,
        accept=_has_digit,
    ),
    Rule(
        "basic-auth",
        (r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?i:basic)[ \t]+([A-Za-z0-9+/]{8,}+={0,2})"),
        ("basic",),
        group=1,
        show_tail=False,
    ),
    Rule(
        "url-password",
        (r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{1,20}://[^\s:/@?#\"'<>]{0,128}:([^\s/@?#\"'<>]{1,256})@"),
        ("://",),
        group=1,
        show_tail=False,
        accept=_plausible_credential,
    ),
    Rule(
        "password",
        (
            r"(?<![A-Za-z0-9])(?i:password|passwd|passphrase|pass)[\"']?\s*(?::=|=>|[:=])\s*[\"']?"
            r"([^\s\"'`,;()\[\]{}<>]{6,256}+)(?=$|[\s\"'`,;)])"
        ),
        ("pass",),
        group=1,
        show_tail=False,
        accept=_plausible_credential,
    ),
    Rule(
        "secret",
        (
            r"(?<![A-Za-z0-9])(?i:api[_-]?key|secret(?:[_-]?key)?|client[_-]?secret|(?:access|auth|refresh|api|private)[_-]?token|token)"
            r"[\"']?\s*(?::=|=>|[:=])\s*[\"']?([^\s\"'`,;()\[\]{}<>]{8,256}+)(?=$|[\s\"'`,;)])"
        ),
        ("key", "secret", "token"),
        group=1,
        show_tail=False,
        accept=_plausible_assignment,
    ),
]

RULES.append(
    Rule(
        # A credential word, a few words of prose, then a long generated-looking
        # value: "my api key is Zq8Xw3…", "token for staging: 7f3Kq9Zx…".
        "secret",
        (
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

KINDS: tuple[str, ...] = tuple(dict.fromkeys(rule.kind for rule in RULES))

# Within this many characters of an AWS access key id, a 40-character value of
# the secret key's alphabet is taken as its secret key, even with no label.
AWS_PAIR_WINDOW = 240
AWS_SECRET_NEAR = re.compile(r"(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])")
