"""Every operation answers alike in process (Library) and through the holder (RemoteEngine).

One Library over a copy of the demo index serves itself on its socket; a
RemoteEngine attached to it asks the same questions. Each operation of
core/holder/ops.py is called both ways with the same arguments, and the test
fails when one is left out, so a new operation brings its case here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import asdict
from typing import Any

import pytest
from convo_tui.core.engine import Engine
from convo_tui.core.errors import AmbiguousSessionId, ConvoError
from convo_tui.core.holder.access import attach
from convo_tui.core.holder.ops import LOCAL_ONLY, OPERATIONS
from convo_tui.core.holder.remote import RemoteEngine
from convo_tui.core.holder.server import HolderServer
from convo_tui.core.library import Library


@pytest.fixture(scope="module")
def engines(demo_writable) -> Iterator[tuple[Library, RemoteEngine]]:
    _settings, library = demo_writable
    server = HolderServer(library, library.settings.index_dir).start()
    remote = attach(library.settings)
    assert isinstance(remote, RemoteEngine)
    yield library, remote
    remote.close()
    server.stop()


Engines = tuple[Library, RemoteEngine]


def alike(engines: Engines, name: str, *args: Any, **kwargs: Any) -> Any:
    """Ask both; they must answer the same. Returns the answer."""
    local, remote = engines
    here, there = getattr(local, name)(*args, **kwargs), getattr(remote, name)(*args, **kwargs)
    assert here == there, name
    return here


def _some(engines: Engines, n: int = 0) -> str:
    return engines[0].sessions()[n].id


def _reading(name: str, *args: Any, **kwargs: Any) -> Callable[[Engines], None]:
    return lambda engines: alike(engines, name, *args, **kwargs)


def _per_session(name: str, **kwargs: Any) -> Callable[[Engines], None]:
    def case(engines: Engines) -> None:
        for n in range(3):
            alike(engines, name, _some(engines, n), **kwargs)
        alike(engines, name, _some(engines)[:8], **kwargs)  # a prefix too

    return case


def _sessions(engines: Engines) -> None:
    summaries = alike(engines, "sessions")
    assert len(summaries) == 15
    project = summaries[0].project
    assert alike(engines, "sessions", project) == [s for s in summaries if s.project == project]


def _search(engines: Engines) -> None:
    for mode in ("hybrid", "semantic", "keyword", "fuzzy"):
        assert alike(engines, "search", "qdrant collection", limit=5, mode=mode) or mode == "semantic"
    alike(engines, "search", "qdrant", limit=3, offset=1)
    prefix = _some(engines)[:8]
    found = alike(engines, "search", f"session:{prefix}", limit=50, mode="keyword")
    assert {hit.session_id for hit in found} <= {_some(engines)}


def _hits_in_session(engines: Engines) -> None:
    hit = engines[0].search("qdrant", limit=1)[0]
    assert alike(engines, "hits_in_session", "qdrant", hit.session_id)
    alike(engines, "hits_in_session", "qdrant", hit.session_id[:8])


def _context(engines: Engines) -> None:
    hit = engines[0].search("qdrant", limit=1)[0]
    messages = alike(engines, "context", "how did we set up qdrant", session_id=hit.session_id[:8], recent=4, refs=2)
    assert messages[0].role == "system"
    alike(engines, "context", "qdrant", all_sessions=True, split=True)


def _resolve(engines: Engines) -> None:
    sid = _some(engines)
    assert alike(engines, "resolve_session_id", sid[:8]) == sid
    assert alike(engines, "resolve_session_id", sid) == sid
    for engine in engines:
        with pytest.raises(ConvoError, match=r"^no session 'zzzzzzzz9' in the index$"):
            engine.resolve_session_id("zzzzzzzz9")


def _edit(name: str, args: tuple[Any, ...], undo: Callable[[Library, str], Any], **kwargs: Any) -> Callable[[Engines], None]:
    def case(engines: Engines) -> None:
        local, remote = engines
        sid = _some(engines, 1)
        before = local.session_summary(sid)
        here = getattr(local, name)(sid, *args, **kwargs)
        there = getattr(remote, name)(sid[:8], *args, **kwargs)  # a prefix, through the holder
        assert here == there, name
        undo(local, sid)
        assert local.session_summary(sid) == before

    return case


def _delete_and_restore(engines: Engines) -> None:
    local, remote = engines
    first, second = _some(engines, 0), _some(engines, 1)
    assert local.delete_session(first) is None and remote.delete_session(second[:8]) is None
    assert {first, second}.isdisjoint(s.id for s in remote.sessions())
    assert remote.restore_session(first[:8]) is True and local.restore_session(second) is True
    assert local.restore_session(second) is False and remote.restore_session(second) is False
    assert local.index().added == 2  # the restored two come back
    assert len(local.sessions()) == 15


def _index(engines: Engines) -> None:
    local, remote = engines
    here, there = local.index(), remote.index()
    timing = {"seconds", "keyword_seconds"}
    assert {k: v for k, v in asdict(here).items() if k not in timing} == {
        k: v for k, v in asdict(there).items() if k not in timing
    }
    assert here.unchanged == 15 and here.added == 0


CASES: dict[str, Callable[[Engines], None]] = {
    "load_model": _reading("load_model"),
    "model_info": _reading("model_info"),
    "readiness": _reading("readiness"),
    "default_paths": _reading("default_paths"),
    "projects": _reading("projects"),
    "stats": _reading("stats"),
    "prune": _reading("prune"),
    "sessions": _sessions,
    "session": _per_session("session"),
    "session_summary": _per_session("session_summary"),
    "session_settings": _per_session("session_settings"),
    "resolve_session_id": _resolve,
    "search": _search,
    "hits_in_session": _hits_in_session,
    "context": _context,
    "rename_session": _edit("rename_session", ("A title of mine",), lambda lib, sid: lib.rename_session(sid, "")),
    "describe_session": _edit("describe_session", ("notes",), lambda lib, sid: lib.describe_session(sid, "")),
    "star_session": _edit("star_session", (), lambda lib, sid: lib.star_session(sid, False), starred=True),
    "tag_session": _edit("tag_session", (["alpha"],), lambda lib, sid: lib.tag_session(sid, ["alpha"], remove=True)),
    "set_session_settings": _edit(
        "set_session_settings", (), lambda lib, sid: lib.set_session_settings(sid, hide_tools=False), hide_tools=True
    ),
    "delete_session": _delete_and_restore,
    "restore_session": _delete_and_restore,
    "index": _index,
}


def test_the_engine_protocol_the_table_and_both_implementations_agree():
    methods = {name for name, _ in inspect.getmembers(Engine, inspect.isfunction) if not name.startswith("_")}
    assert methods == set(OPERATIONS) | LOCAL_ONLY
    for implementation in (Library, RemoteEngine):
        missing = [name for name in methods if getattr(implementation, name, None) is getattr(Engine, name)]
        assert not missing, f"{implementation.__name__} lacks {missing}"


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_every_operation_answers_alike_in_process_and_through_the_holder(engines, name):
    assert name in CASES, f"no conformance case for the operation {name!r}: add one to CASES"
    CASES[name](engines)


def test_an_ambiguous_prefix_is_one_line_naming_candidates_both_ways(engines, monkeypatch):
    local, remote = engines
    ids = [s.id for s in local.sessions()]
    twins = [f"{ids[0][:8]}-twin-a", f"{ids[0][:8]}-twin-b"]  # ids sharing 8 characters
    monkeypatch.setattr(local.ids, "all", lambda: [*ids, *twins])
    for engine in (local, remote):
        with pytest.raises(ConvoError) as caught:
            engine.session(ids[0][:8] + "-")
        assert "ambiguous" in str(caught.value) and "twin-a" in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(AmbiguousSessionId):
        local.resolve_session_id(ids[0][:8] + "-")
