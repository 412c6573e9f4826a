"""Keyword searches that differ only by the level they ask for, asked of Edge as one.

A search runs the same BM25 query once per level (turns, messages), each with a
`level` condition. Edge prunes an unfiltered sparse search (it skips postings
that cannot reach the top), but checks a filter on every candidate of every
posting: at a million messages a common word's search took 22-25 ms a level
filtered and 2 ms unfiltered (BENCHMARKS.md, "Twenty-third session"). So when
the queries carry no other condition, the store asks once, unfiltered, for
`SPREAD` times as many hits, and gives each level its own hits in order. That
is each level's answer whenever the list holds `limit` hits of it, or every hit
there is; a level short of both is asked again with its condition (`short`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from convo_tui.core.store.base import Query
from convo_tui.core.store.edge_facets import FACETS, facet

LEVEL = "level"
# Hits asked for per level's limit. Turns are about one point in seven, but a
# query's words favour one level or the other: at a million messages both
# levels had their 60 hits at 5x in 16 of 19 typed prefixes (at 2x in none, at
# 20x in all, but the search then takes 30-57 ms instead of 7-18).
SPREAD = 5


@dataclass(frozen=True)
class LevelSearch:
    """One unfiltered query standing for keyword queries of several levels."""

    query: Query  # no filter; SPREAD times the members' limit
    members: tuple[tuple[int, str], ...]  # (index of the level's query, its level)
    limit: int  # each member's


def level_searches(queries: Sequence[Query]) -> list[LevelSearch]:
    """The groups of keyword-only `queries` whose filters are a single `level`
    condition and that differ in nothing else (two or more a group)."""
    groups: dict[tuple[Any, ...], list[tuple[int, str]]] = {}
    for i, q in enumerate(queries):
        level = _only_level(q)
        if level is None or q.sparse is None or not q.sparse.indices or q.dense is not None:
            continue
        fields = tuple(q.fields) if q.fields is not None else None
        shape = (tuple(q.sparse.indices), tuple(q.sparse.values), q.limit, fields, q.with_terms, q.with_dense)
        groups.setdefault(shape, []).append((i, level))
    out = []
    for members in groups.values():
        if len(members) < 2 or len({level for _, level in members}) < len(members):
            continue
        first = queries[members[0][0]]
        merged = replace(first, filter=None, limit=first.limit * SPREAD, with_dense=False)
        out.append(LevelSearch(merged, tuple(members), first.limit))
    return out


def _only_level(q: Query) -> str | None:
    flt = q.filter
    if flt is None or flt.must_not or len(flt.must) != 1:
        return None
    cond = flt.must[0]
    return cond.value if cond.key == LEVEL and isinstance(cond.value, str) and not cond.any else None


def level_fields(fields: Sequence[str] | None, is_faceted: bool) -> list[str] | None:
    """The payload fields to ask for so that each hit's level can be told (None: whole)."""
    if fields is None:
        return None
    return [*fields, FACETS if is_faceted else LEVEL]


def split(group: LevelSearch, points: Sequence[Any], is_faceted: bool) -> tuple[dict[int, list[Any]], list[int]]:
    """Each member's hits among Edge's `points` (best first), and the members whose
    answer they do not settle: fewer than `limit` of theirs in a full list."""
    full = len(points) >= group.query.limit
    answers: dict[int, list[Any]] = {}
    short: list[int] = []
    for i, level in group.members:
        if is_faceted:
            mark = facet(LEVEL, level)
            mine = [p for p in points if mark in (p.payload or {}).get(FACETS, ())]
        else:
            mine = [p for p in points if (p.payload or {}).get(LEVEL) == level]
        if len(mine) >= group.limit or not full:
            answers[i] = mine[: group.limit]
        else:
            short.append(i)
    return answers, short
