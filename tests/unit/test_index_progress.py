"""What `convo-tui index` tells while it runs: the pace, the time left and the plain lines (issue 23)."""

from __future__ import annotations

import io

from convo_tui.cli.index_progress import PlainProgress, duration, keyword_detail, semantic_detail
from convo_tui.core.engine import Readiness, whole_percent
from convo_tui.core.holder.codec import progress_from_json, progress_json
from convo_tui.core.index.publish import IndexProgress
from convo_tui.core.index.throughput import Throughput
from convo_tui.core.store.lock import short_command


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_time_left_follows_the_recent_pace_not_the_runs_average():
    """Issue 23: the ETA sat at "about 7 min" for minutes. 10 texts/s for two minutes, then
    2 texts/s: a minute later the estimate is the slow pace's, where the run's average
    (elapsed / done x left) would still say a third of it."""
    clock = Clock()
    pace = Throughput(clock=clock)
    done = 0
    for _ in range(120):
        clock.now += 1
        done += 10
        pace.add(done)
    assert pace.rate() == 10
    for _ in range(60):
        clock.now += 1
        done += 2
        pace.add(done)
    left = 3000
    assert pace.rate() == 2
    assert pace.eta(left) == 1500
    average = (done / 180) * 1.0
    assert left / average < 500  # what the old estimate said


def test_no_estimate_before_the_work_was_watched_for_a_few_seconds():
    clock = Clock()
    pace = Throughput(clock=clock)
    pace.add(0)
    clock.now += 1
    pace.add(50)
    assert pace.rate() is None and pace.eta(100) is None
    clock.now += 3
    pace.add(60)
    assert pace.rate() == 15 and pace.eta(0) == 0.0


def test_plain_lines_one_per_phase_step_at_most_every_few_seconds_and_the_end_of_each():
    """Issue 23: with output to a file `index` printed nothing for minutes."""
    clock, out = Clock(), io.StringIO()
    show = PlainProgress(out, None, every=5.0, clock=clock)
    with show:
        show(IndexProgress("index", 0, 300, "/h/a.jsonl", 0, None))
        for done in range(1, 300):
            clock.now += 0.1
            show(IndexProgress("index", done, 300, "/h/a.jsonl", done, 12.0))
        show(IndexProgress("index", 300, 300, None, 300, None))
        show(IndexProgress("semantic", 1200, 3528, None, 300, None, None))
        clock.now += 1
        show(IndexProgress("semantic", 1230, 3528, None, 300, 95.0, 21.3))  # too soon: not told
        clock.now += 5
        show(IndexProgress("semantic", 1330, 3528, None, 300, 100.0, 22.0))
        show(IndexProgress("semantic", 3528, 3528, None, 300, 0.0, 22.0))
    lines = out.getvalue().splitlines()
    assert lines[0] == "convo-tui: keyword: 0/300 files · estimating the time left"
    keyword = [line for line in lines if line.startswith("convo-tui: keyword:")]
    assert 5 <= len(keyword) <= 8, keyword  # 30 s of events: one line per 5 s, the first and the last
    assert keyword[-1] == "convo-tui: keyword: 300/300 files · 300 sessions searchable"
    assert [line for line in lines if "semantic" in line] == [
        "convo-tui: semantic: 1,200/3,528 texts (34%) · estimating the time left",
        "convo-tui: semantic: 1,330/3,528 texts (37%) · 22/s · about 2 min left",
        "convo-tui: semantic: 3,528/3,528 texts (100%)",
    ]


def test_one_line_says_who_does_the_work():
    out = io.StringIO()
    with PlainProgress(out, "pid 4242 (convo-tui serve)") as show:
        show(IndexProgress("wait", 0, 0))
        show(IndexProgress("takeover", 0, 0))
        show(IndexProgress("wait", 0, 0))
    assert out.getvalue().splitlines() == [
        "convo-tui: handed to pid 4242 (convo-tui serve), which holds the index",
        "convo-tui: waiting for pid 4242 (convo-tui serve) to finish its index run",
        "convo-tui: pid 4242 (convo-tui serve) stopped; the run goes on here",
        "convo-tui: waiting for this process to finish its index run",
    ]


def test_keyword_progress_counts_files_and_sessions():
    assert keyword_detail(IndexProgress("index", 1, 1, None, 1)) == "1/1 files · 1 session searchable"
    assert keyword_detail(IndexProgress("index", 0, 0, None, 0)) == "no new or changed files"
    assert keyword_detail(IndexProgress("index", 2, 9, None, 2, 75.0)) == "2/9 files · 2 sessions searchable · about 75 s left"


def test_semantic_progress_reads_as_a_share_of_the_whole_index():
    p = IndexProgress("semantic", 1235, 3528, None, 0, 7 * 60.0, 3.0)
    assert semantic_detail(p) == "1,235/3,528 texts (35%) · 3/s · about 7 min left"


def test_a_share_short_of_the_whole_never_shows_100_percent():
    assert whole_percent(11_294, 11_343) == "99%"  # 99.57%: the run is not done
    assert whole_percent(11_343, 11_343) == "100%"
    assert whole_percent(0, 0) == "100%"
    ready = Readiness(sessions=442, texts_ready=11_294, texts_total=11_343, model="m", model_reason="r")
    assert "11294/11343 texts (99%) searchable by meaning" in ready.describe()  # `sources` says the same as `index`
    assert [duration(s) for s in (0, 45, 89, 90, 3599, 5400, 7260)] == [
        "0 s",
        "45 s",
        "89 s",
        "2 min",
        "60 min",
        "1 h 30 min",
        "2 h 01 min",
    ]


def test_progress_from_a_newer_holder_with_fields_this_side_lacks_still_reads():
    data = progress_json(IndexProgress("semantic", 5, 10, None, 2, 3.0, 1.5))
    assert progress_from_json({**data, "added_later": 1}) == IndexProgress("semantic", 5, 10, None, 2, 3.0, 1.5)


def test_a_process_is_named_as_a_person_runs_it():
    assert short_command(["/v/bin/python3", "/v/bin/convo-tui", "serve", "--no-watch"]) == ["convo-tui", "serve", "--no-watch"]
    assert short_command(["python", "-m", "convo_tui.cli.main", "index"]) == ["convo-tui", "index"]
    assert short_command(["/usr/bin/convo-tui"]) == ["convo-tui"]
    assert short_command(["/usr/bin/python3.11", "-u", "-c", "pass"]) == ["python3.11", "-u", "-c", "pass"]


def test_the_apps_status_line_names_the_engines_notices():
    from convo_tui.tui.widgets.index_status import progress_label

    assert progress_label("model", 0, 0) == "Indexing: loading the embedding model"
    assert progress_label("wait", 0, 0) == "Indexing: waiting for the index run under way to end"
    assert progress_label("takeover", 0, 0) == "Indexing: the process holding the index stopped; going on here"
    # Waiting for another run, the app reads how far it is off the index.
    assert progress_label("wait", 120, 900, 310) == "Indexing (another run): 310 sessions searchable · semantic 120/900 texts"


def test_the_keyword_bar_says_what_phase_one_did_once_phase_two_begins():
    """Phase 1 ends with an optimize ("building the search graph"); once phase 2 begins
    that is done, and the keyword bar says again what phase 1 did."""
    from convo_tui.cli.index_progress import LiveProgress

    bars = LiveProgress(io.StringIO(), None)
    done = IndexProgress("index", 442, 442, None, 442)
    for p in (done, IndexProgress("optimize", 0, 0, None, 442)):
        bars(p)
    assert bars.bars.tasks[0].fields["detail"] == "building the search graph"
    bars(IndexProgress("semantic", 0, 11_343, None, 442))
    assert bars.bars.tasks[0].fields["detail"] == keyword_detail(done) == "442/442 files · 442 sessions searchable"
