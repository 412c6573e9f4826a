"""A holder that stops while it serves an index run stops in order (issue 23).

Quitting the app while `convo-tui index` ran through it hung 21 s, then aborted
(`terminate called without an active exception`, exit 134): the holder waited
10 s per request thread, closed the store under a run still inside
onnxruntime, and the interpreter exited with that thread running. Now closing
cancels the run (it stops within a model batch), every request thread ends
before the store closes, and the client whose run was cut short takes the
index over and finishes the run itself.
"""

from __future__ import annotations

import threading
from pathlib import Path

from convo_tui.core.holder.access import attach, open_local
from convo_tui.core.holder.remote import RemoteEngine
from convo_tui.core.library import Library
from convo_tui.core.settings import DEFAULT_MODEL, Settings

from tests.helpers.demo_corpus import copy_demo


def _holder_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("holder") and t.is_alive()]


def test_closing_a_holder_mid_run_cancels_it_joins_its_threads_and_the_client_finishes(tmp_path: Path):
    corpus = copy_demo(tmp_path)
    settings = Settings(index_dir=tmp_path / "index", sources=[corpus], discover_defaults=False, model=DEFAULT_MODEL)
    holder = open_local(settings)  # the app or `serve`: holds the index and serves it
    holder.load_model()
    assert holder.index(semantic=False).sessions == 15  # keyword only: the client's run has all of phase 2 to do

    client = attach(settings)
    assert isinstance(client, RemoteEngine)
    phases: list[str] = []
    in_phase_two = threading.Event()
    outcome: dict = {}

    def progress(p) -> None:
        phases.append(p.phase)
        if p.phase == "semantic":
            in_phase_two.set()

    def run_client() -> None:
        try:
            outcome["report"] = client.index(progress=progress)
        except BaseException as exc:  # the assertion below shows it
            outcome["error"] = exc

    runner = threading.Thread(target=run_client, name="client index")
    runner.start()
    assert in_phase_two.wait(120), phases
    holder.close()  # ctrl+q in the app: the server stops first, then the store closes
    assert _holder_threads() == []

    runner.join(180)
    assert not runner.is_alive()
    assert "error" not in outcome, outcome.get("error")
    report = outcome["report"]
    assert "takeover" in phases, phases  # the holder cut the run short; this process finished it
    assert not report.cancelled and report.semantic_ready == report.semantic_total > 0
    client.close()
    with Library.open(settings) as library:  # the lock is free and nothing was lost
        assert len(library.sessions()) == 15
        status = library.semantic_status()
        assert status.ready == status.total
