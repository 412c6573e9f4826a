"""What a query looks like: prose, code (identifiers, paths, commands) or a pasted error.

Hybrid ranking weighs its two retrievers by it (core/search/fusion.py): a
dense model reads `ECONNREFUSED 127.0.0.1:5432` or
`test_checkout_total_rounding_half_even` as a blur of sub-words, while BM25
and a plain substring test see exactly the thing the user remembers. Dense
retrievers are known to miss rare entities and identifiers that BM25 finds
(Sciavolino et al., EMNLP 2021; BEIR); code search engines go lexical-first
for identifier-shaped input. A chat history mixes prose and identifiers in one
question, so the identifiers get a hard tier (a card holding every one of
them verbatim ranks above the rest) and the dense weight is lowered, rather
than the whole query being sent to keyword mode.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Identifier shapes, tested on whole whitespace tokens with surrounding quotes
# and brackets stripped. Hyphenated words ("sign-in", "non-root") are prose.
_IDENT = re.compile(
    r"[A-Za-z0-9]+(?:[_.:\\][A-Za-z0-9]+)+"  # snake_case, dotted.name, host:port, C:\\x
    r"|[\w~.-]*/[\w.-]+(?:/[\w.-]*)*"  # paths: /srv/a-b/c.onnx, src/app.py, deployment/name
    r"|[\w-]+\.[A-Za-z0-9]{1,8}"  # file names: reranker-v3.onnx
    r"|[a-z]+[A-Z][A-Za-z0-9]*"  # camelCase
    r"|[A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]{6,}"  # HTTP_PROXY, ECONNREFUSED (not HTTP, JSON: prose acronyms)
    r"|[A-Za-z]+\d+[A-Za-z0-9]*|\d+[A-Za-z]+[A-Za-z0-9]*"  # E0425, v2beta, 0x1f, 404s
    r"|--?[a-z][a-z0-9-]+(?:=\S+)?"  # --force-with-lease, -rf, --to-revision=41
)
_STRIP = "\"'`()[]{}<>,;!?"
_TRAIL = ".:,"
# Shapes of an error message or log line pasted from a terminal.
_ERROR = re.compile(
    r"\b[A-Z][A-Za-z]*(?:Error|Exception|Warning)\b|\bTraceback\b|\b(?:FATAL|ERROR|CRITICAL):|\bE[A-Z]{4,}\b"
    r"|(?i:\bpanic:|\berror(?:\[[A-Z]?\d+\])?:|\bfailed\b.*:|\bexit (?:code|status)\b|\bno such file\b"
    r"|\bcommand not found\b|\bpermission denied\b|\bsegmentation fault\b|\bnot found\b.*:)"
)
# A dense weight at most this for a query that is mostly code: partial
# identifier matches then rank by their words, not by a blurred meaning.
CODE_DENSE_WEIGHT = 0.3


@dataclass(frozen=True)
class QueryKind:
    """`identifiers`: the identifier-shaped tokens of the query, as typed.
    `code`: most of the query's words are identifiers (weigh keywords up).
    `error`: it reads like a pasted error or log line (quotes in it are not phrases)."""

    identifiers: tuple[str, ...]
    code: bool
    error: bool


def identifier_tokens(text: str) -> list[str]:
    tokens = (word.strip(_STRIP).rstrip(_TRAIL) for word in text.split())
    return [t for t in tokens if t and _IDENT.fullmatch(t) and not _plain_word(t)]


def _plain_word(token: str) -> bool:
    """A capitalised word or an acronym of prose ("The", "TODO" stays an identifier at 4+)."""
    return token.isalpha() and (token.islower() or token.istitle())


def classify(text: str) -> QueryKind:
    identifiers = identifier_tokens(text)
    words = [w for w in text.split() if w.strip(_STRIP)]
    code = bool(identifiers) and len(identifiers) * 2 >= len(words)
    error = bool(_ERROR.search(text)) and len(words) >= 4
    return QueryKind(tuple(identifiers), code, error)


def holds_all(text: str, identifiers: tuple[str, ...]) -> bool:
    """Every identifier occurs verbatim (case-insensitive) in the text."""
    haystack = text.casefold()
    return all(token.casefold() in haystack for token in identifiers)
