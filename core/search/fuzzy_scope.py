"""The words of a small filtered scope's turns, read once for fuzzy mode's typing.

Fuzzy mode scans every turn of a scope of up to FUZZY_SCAN_LIMIT turns. At
10k messages (3,745 turns) a search took 290 ms, of which reading the turns'
texts was 233 ms and splitting them into words 105 ms (BENCHMARKS.md,
"Eighteenth session"): the same for every keystroke while the index does not
change. A `Scope` keeps what the scoring needs (each turn's distinct words, as
indexes into one vocabulary, and its sort keys), and scores a query's words
against the vocabulary once (rapidfuzz `cdist`), each turn's best per word
then being a maximum over its own word indexes (numpy). The score is the one
`fuzzy_score` gives a text, to the last bit: the mean over query words of the
best `fuzz.ratio` to one of the text's words.

A scope is kept per store for one filter at a time, while `Store.writes()`
says this process alone writes the index and has not since.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from convo_tui.core.store.base import Filter, Store
from rapidfuzz import fuzz, process, utils

# What a scope reads of each turn: its words, and what orders equal scores.
SCOPE_FIELDS = ["session_id", "turn_index", "user_text", "ai_text", "text"]


def text_of(payload: dict[str, Any]) -> str:
    """The text fuzzy mode scores a point on."""
    return f"{payload.get('user_text', '')}\n{payload.get('ai_text', '')}\n{payload.get('text', '')}"


def words_of(text: str) -> list[str]:
    """The text's distinct words, as rapidfuzz's default processing splits them."""
    return list(dict.fromkeys(utils.default_process(text).split()))


@dataclass
class Ranked:
    id: str
    score: float  # 0..100


class Scope:
    """The turns a filter matched: ids, sort keys, and the words of each."""

    def __init__(self, points: Sequence[Any]):
        vocabulary: dict[str, int] = {}
        ids: list[int] = []
        starts: list[int] = []
        self.ids: list[str] = []
        self.order: list[tuple[str, int]] = []  # (session_id, turn_index): ties break on them
        for point in points:
            p = point.payload
            self.ids.append(point.id)
            turn = p.get("turn_index", -1)
            self.order.append((str(p.get("session_id", "")), turn if isinstance(turn, int) else -1))
            starts.append(len(ids))
            ids.extend(vocabulary.setdefault(word, len(vocabulary)) for word in words_of(text_of(p)))
        self.vocabulary = list(vocabulary)
        self.word_ids = np.asarray(ids, dtype=np.int32)
        self.starts = np.asarray(starts, dtype=np.int64)
        self.empty = np.diff(np.append(self.starts, len(ids))) == 0  # a turn without a word scores 0

    def scores(self, words: Sequence[str]) -> np.ndarray:
        """Each turn's score (0..100) for these query words, none of them Chinese,
        Japanese or Korean (those are matched on runs of characters: `fuzzy_score`)."""
        if not words or not self.ids or not self.vocabulary:
            return np.zeros(len(self.ids))
        ratios = process.cdist(list(words), self.vocabulary, scorer=fuzz.ratio, processor=None, dtype=np.float64)
        worded, starts = ~self.empty, self.starts[~self.empty]
        total = np.zeros(len(self.ids))
        for row in ratios:  # word by word, summed in fuzzy_score's order: the same float
            best = np.zeros(len(self.ids))
            # A turn's best is the maximum over its run of word indexes; reduceat over the
            # turns that have words (an empty run would give the next run's first value).
            best[worded] = np.maximum.reduceat(row[self.word_ids], starts)
            total = total + best
        return total / len(words)

    def ranked(self, words: Sequence[str], minimum: float) -> list[Ranked]:
        """The turns scoring at least `minimum`, best first; ties by session, turn and id."""
        scores = self.scores(words)
        kept: list[int] = np.flatnonzero(scores >= minimum).tolist()
        # Ordered on the score as a card carries it (score / 100), as the scan orders them.
        kept.sort(key=lambda i: (-(scores[i] / 100.0), self.order[i][0], self.order[i][1], self.ids[i]))
        return [Ranked(self.ids[i], float(scores[i])) for i in kept]


class Scopes:
    """One scope per store, the last filter's, until the store is written."""

    def __init__(self) -> None:
        self._kept: weakref.WeakKeyDictionary[Store, tuple[Filter, int, Scope]] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, store: Store, flt: Filter) -> Scope | None:
        """The scope of `flt`, read now or kept from an earlier search; None when
        the store cannot say it is unchanged (nothing is kept then)."""
        writes = store.writes()
        if writes is None:
            return None
        with self._lock:
            kept = self._kept.get(store)
            if kept is not None and kept[0] == flt and kept[1] == writes:
                return kept[2]
        scope = Scope(list(store.scroll(flt, fields=SCOPE_FIELDS)))
        if store.writes() == writes:  # not written while it was read
            with self._lock:
                self._kept[store] = (flt, writes, scope)
        return scope


SCOPES = Scopes()
