"""Every operation of the Engine answers alike in this process and through the holder.

The same index is opened here (a Library that serves it) and asked through a
RemoteEngine that talks to that holder over its socket: the same arguments
must give the same results and the same errors. Every operation of
core/holder/ops.py must have a case below, and the Protocol, the table and
both implementations must agree on every operation's parameters.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from convo_tui.core.engine import Engine
from convo_tui.core.errors import ConvoError
from convo_tui.core.holder.access import attach, open_local
from convo_tui.core.holder.ops import LOCAL_ONLY, OPERATIONS
from convo_tui.core.holder.remote import RemoteEngine
from convo_tui.core.library import Library
from convo_tui.core.settings import DEFAULT_MODEL, Settings

from tests.conftest import build_relevance, built_once
from tests.helpers.index_copy import copy_index

SESSION = "qdrant-setup"
STREAMED = ("progress", "cancel")


def _engine_methods() -> set[str]:
    return {
        name
        for name, value in vars(Engine).items()
        if callable(value) and not name.startswith("_") and name not in {"settings", "read_only"}
    }


def _params(method: Callable[..., Any]) -> list[tuple[str, Any, Any]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(method).parameters.values() if p.name != "self"]


def test_the_table_the_protocol_and_both_engines_agree_on_every_operation():
    assert _engine_methods() == set(OPERATIONS) | LOCAL_ONLY
    for name, operation in OPERATIONS.items():
        wanted = _params(getattr(Engine, name))
        assert _params(getattr(Library, name)) == wanted, name
        assert _params(getattr(RemoteEngine, name)) == wanted, name
        served = [p for p in wanted if not (operation.streams and p[0] in STREAMED)]
        assert [p.name for p in operation.params] == [p[0] for p in served], name
        defaults = {p.name: p.default for p in operation.params}
        for param, _kind, default in served:
            if default is not inspect.Parameter.empty:
                assert defaults[param] == default, (name, param)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_once(tmp_path_factory, "relevance-index", build_relevance)


@pytest.fixture
def engines(built: Path, tmp_path: Path) -> Iterator[tuple[Engine, Engine]]:
    """(the Library here, serving; a RemoteEngine asking it), over a copy of the relevance index."""
    index = tmp_path / "index"
    copy_index(built / "index", index)
    settings = Settings(index_dir=index, sources=[built / "src"], discover_defaults=False, model=DEFAULT_MODEL)
    with open_local(settings) as local:
        local.load_model()
        remote = attach(settings)
        assert isinstance(remote, RemoteEngine)
        yield local, remote
        remote.close()


def _same(result: Any) -> Any:
    """What must agree: results as plain data (timings of an index run aside)."""
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        data = dataclasses.asdict(result)
        for timing in ("seconds", "keyword_seconds"):
            data.pop(timing, None)
        return data
    if isinstance(result, list):
        return [_same(item) for item in result]
    return result


def _both(engines: tuple[Engine, Engine], name: str, **kwargs: Any) -> Any:
    local, remote = engines
    here = getattr(local, name)(**kwargs)
    there = getattr(remote, name)(**kwargs)
    assert _same(there) == _same(here), name
    return here


def _same_error(engines: tuple[Engine, Engine], name: str, **kwargs: Any) -> str:
    messages = []
    for engine in engines:
        with pytest.raises(ConvoError) as caught:
            getattr(engine, name)(**kwargs)
        messages.append((type(caught.value), str(caught.value)))
    assert messages[0] == messages[1], name
    return messages[0][1]


# -- one case per operation: same answers ------------------------------------------


def _reads(engines: tuple[Engine, Engine]) -> None:
    _both(engines, "load_model")
    _both(engines, "model_info")
    hits = _both(engines, "search", query="qdrant collection", limit=5, mode="hybrid", offset=0)
    assert hits, "the case must compare real hits"
    _both(engines, "search", query="qdrant", limit=3, mode="keyword", offset=1)
    _both(engines, "hits_in_session", query="payload index", session_id=SESSION, mode="keyword")
    _both(engines, "context", question="how do I make a qdrant collection", session_id=SESSION, recent=4, refs=2)
    _both(engines, "context", question="qdrant", system="", split=True, all_sessions=True, preferences="short answers")
    assert _both(engines, "sessions")
    _both(engines, "sessions", project="vectordb")
    assert len(_both(engines, "sessions", limit=2)) == 2
    _both(engines, "projects")
    _both(engines, "tags")
    page = _both(engines, "session_page", offset=0, limit=3, sort="date", starred_only=False, text="")
    assert page.entries and page.everything >= len(page.entries)
    _both(engines, "session_page", offset=1, limit=50, sort="project", starred_only=False, text="")
    around = _both(engines, "session_page", offset=0, limit=2, sort="project", around=SESSION)
    assert SESSION in [e.summary.id for e in around.entries if e.summary is not None]
    _both(engines, "session_page", offset=0, limit=10, sort="title", starred_only=True, text="qdrant")
    _both(engines, "session", session_id=SESSION)
    _both(engines, "session_summary", session_id=SESSION)
    _both(engines, "stats")
    _both(engines, "readiness")
    assert _both(engines, "reading"), "the case must compare real readings"
    _both(engines, "session_settings", session_id=SESSION)
    _both(engines, "default_paths")


def _edits(engines: tuple[Engine, Engine]) -> None:
    local, remote = engines
    for first, second in ((remote, local), (local, remote)):
        renamed = first.rename_session(SESSION, "Collection set-up")
        assert second.session_summary(SESSION) == renamed and renamed.title == "Collection set-up"
        described = first.describe_session(SESSION, "how the collection was made")
        assert second.session_summary(SESSION) == described
        starred = first.star_session(SESSION, starred=True)
        assert second.session_summary(SESSION) == starred and starred.starred
        tagged = first.tag_session(SESSION, ["db", "qdrant"], remove=False)
        assert second.session_summary(SESSION) == tagged and tagged.tags == ["db", "qdrant"]
        untagged = first.tag_session(SESSION, ["db"], remove=True)
        assert untagged.tags == ["qdrant"]
        values = first.set_session_settings(SESSION, hide_thinking=True, hide_tools=None)
        assert second.session_settings(SESSION) == values and values["hide_thinking"]
        first.set_session_settings(SESSION, hide_thinking=False)
        first.rename_session(SESSION, "")
        first.tag_session(SESSION, ["qdrant"], remove=True)
        first.star_session(SESSION, starred=False)


def _session_ids(engines: tuple[Engine, Engine]) -> None:
    """Ids as cards show them (8+ characters) name their session wherever an id is taken."""
    local, _remote = engines
    prefix = SESSION[:8]
    assert _both(engines, "resolve_session_id", session_id=prefix) == SESSION
    assert _both(engines, "resolve_session_id", session_id=SESSION) == SESSION
    assert _both(engines, "session_summary", session_id=prefix).id == SESSION
    assert _both(engines, "session", session_id=prefix).id == SESSION
    assert _both(engines, "hits_in_session", query="payload index", session_id=prefix, mode="keyword")
    found = _both(engines, "search", query=f"payload session:{prefix}", limit=5, mode="keyword", offset=0)
    assert found and {hit.session_id for hit in found} == {SESSION}
    assert _both(engines, "star_session", session_id=prefix, starred=True).starred
    local.star_session(SESSION, starred=False)


def _index_runs(engines: tuple[Engine, Engine]) -> None:
    local, remote = engines
    seen: list[str] = []
    first = remote.index(progress=lambda p: seen.append(p.phase))
    again = local.index()
    assert _same(first) == _same(again) and first.unchanged == again.unchanged > 0
    assert seen, "progress crosses the socket"
    assert _both(engines, "prune") == 0
    remote.delete_session(SESSION)
    assert all(s.id != SESSION for s in local.sessions())
    assert local.restore_session(SESSION) is True
    assert remote.restore_session(SESSION) is False
    back = remote.index()
    assert back.added + back.updated == 1, back
    assert any(s.id == SESSION for s in local.sessions())


def _archive(engines: tuple[Engine, Engine]) -> None:
    local, remote = engines
    status = _both(engines, "archive_status")
    assert status.enabled and status.files > 0
    folder = Path(local.settings.index_dir).parent
    exported = [engine.export_archive(folder / f"{name}.tar.zst") for name, engine in (("here", local), ("there", remote))]
    assert _same(dataclasses.replace(exported[0], path="", bytes=0)) == _same(dataclasses.replace(exported[1], path="", bytes=0))
    imported = _both(engines, "import_archive", path=folder / "there.tar.zst")
    assert (imported.files, imported.versions, imported.annotations) == (0, 0, 0)  # its own history: nothing new
    assert "no such file" in _same_error(engines, "import_archive", path=folder / "missing.tar.zst")


CASES: dict[str, Callable[[tuple[Engine, Engine]], None]] = {
    **dict.fromkeys(
        [
            "load_model",
            "model_info",
            "search",
            "hits_in_session",
            "context",
            "sessions",
            "session_page",
            "projects",
            "tags",
            "session",
            "session_summary",
            "stats",
            "readiness",
            "reading",
            "session_settings",
            "default_paths",
        ],
        _reads,
    ),
    **dict.fromkeys(
        [
            "rename_session",
            "describe_session",
            "star_session",
            "tag_session",
            "set_session_settings",
        ],
        _edits,
    ),
    **dict.fromkeys(["index", "prune", "delete_session", "restore_session"], _index_runs),
    "resolve_session_id": _session_ids,
    **dict.fromkeys(["archive_status", "export_archive", "import_archive"], _archive),
}


def test_every_operation_has_a_case():
    assert set(CASES) == set(OPERATIONS)


@pytest.mark.parametrize("case", sorted({case.__name__: case for case in CASES.values()}), ids=str)
def test_same_answers_in_process_and_through_the_holder(engines, case):
    {c.__name__: c for c in CASES.values()}[case](engines)


# -- and the same errors ---------------------------------------------------------------


def test_same_errors_in_process_and_through_the_holder(engines):
    for name in ("session", "session_summary", "session_settings", "rename_session", "star_session", "delete_session"):
        kwargs: dict[str, Any] = {"session_id": "no-such-session"}
        if name == "rename_session":
            kwargs["title"] = "x"
        assert "no-such-session" in _same_error(engines, name, **kwargs)
    assert "unknown search mode" in _same_error(engines, "search", query="qdrant", mode="bogus")
    assert _same_error(engines, "search", query="qdrant project:")

    assert _same_error(engines, "resolve_session_id", session_id="zzzzzzzz9") == "no session 'zzzzzzzz9' in the index"
    short = _same_error(engines, "session", session_id=SESSION[:4])
    assert short == f"session id '{SESSION[:4]}' is too short: give 8 or more characters of it"


def test_an_ambiguous_prefix_is_the_same_one_line_naming_candidates(engines, monkeypatch):
    local, _remote = engines
    assert isinstance(local, Library)
    twins = [f"{SESSION}-a", f"{SESSION}-b"]  # ids sharing a prefix with SESSION: the index lists them too
    ids = local.ids.all()
    monkeypatch.setattr(local.ids, "all", lambda: [*ids, *twins])
    message = _same_error(engines, "session", session_id=f"{SESSION}-")
    assert message.startswith(f"session id '{SESSION}-' is ambiguous: 2 sessions start with it ({twins[0]}, {twins[1]})")
    assert "\n" not in message
