"""core.history: the query history and the remembered view, small files in the user's data dir."""

from __future__ import annotations

import json
import stat

from convo_tui.core.history import HISTORY_CAP, QueryHistory, ViewState, state_dir


def test_state_dir_follows_the_index_dir_env(isolated_dirs):
    assert state_dir() == isolated_dirs


def test_history_keeps_queries_across_runs_newest_last_without_repeats(tmp_path):
    path = tmp_path / "history.json"
    history = QueryHistory(path)
    for query in ("redis", "qdrant collection", " redis ", ""):
        history.add(query)
    assert history.save() is None
    assert QueryHistory(path).queries == ["qdrant collection", "redis"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_history_is_capped(tmp_path):
    history = QueryHistory(tmp_path / "history.json")
    for number in range(HISTORY_CAP + 5):
        history.add(f"query {number}")
    assert len(history.queries) == HISTORY_CAP and history.queries[-1] == f"query {HISTORY_CAP + 4}"


def test_a_broken_history_file_is_an_empty_history(tmp_path):
    path = tmp_path / "history.json"
    path.write_text("{not json", encoding="utf-8")
    assert QueryHistory(path).queries == []
    path.write_text(json.dumps({"a": 1}), encoding="utf-8")
    assert QueryHistory(path).queries == []


def test_an_unwritable_place_is_reported_not_raised(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    history = QueryHistory(blocker / "history.json")
    history.add("redis")
    problem = history.save()
    assert problem and str(blocker) in problem


def test_view_state_round_trips_and_ignores_bad_values(tmp_path):
    path = tmp_path / "view.json"
    view = ViewState(path)
    assert (view.compact, view.sort) == (False, "relevance")
    view.compact, view.sort = True, "date"
    assert view.save() is None
    again = ViewState(path)
    assert (again.compact, again.sort) == (True, "date")
    path.write_text(json.dumps({"compact": "yes", "sort": "random"}), encoding="utf-8")
    assert (ViewState(path).compact, ViewState(path).sort) == (False, "relevance")
