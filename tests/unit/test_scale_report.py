"""The scale bench's report: every figure of issue 25's "Done when" reaches the plot."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.scale import keep_peers, with_phase2
from bench.scale_report import CHARTS, TARGETS, _nice_step, plot, series


def _entry(messages: int, factor: float) -> dict:
    return {
        "history": {"messages": messages},
        "index": {
            "needles": {"quillfeatherstorm": {"found_after": 2.0 * factor}, "marzipanlighthouse": {"found_after": 50.0}},
            "indexed": {"keyword_done": 40.0 * factor, "projected_semantic_seconds": 600.0 * factor},
            "peak_rss_mb": 450.0,
        },
        "search": {"modes": {"hybrid": {"p95": 60.0 * factor}, "keyword": {"p95": 30.0}}},
        "cli": {
            "cold keyword search": {"x_help": 2.5 * factor},
            "cold hybrid search": {"x_help": 6.0},
            "served hybrid search": {"x_help": 1.2},
            "served keyword search": {"x_help": 1.1},
            "holder peak_mb": {"peak_mb": 300},
        },
        "app": {"sessions_browser_seconds": 0.3 * factor, "keystroke_p50_ms": 90.0, "keystroke_p95_ms": 140.0},
        "peers": [
            {"tool": "ccsearch", "first_answer_seconds": 0.9 * factor, "first_peak_mb": 18, "timeout": False},
            {"tool": "agentsview", "sync_seconds": 7.0 * factor, "sync_peak_mb": 138, "timeout": False},
            {"tool": "slowpoke", "first_answer_seconds": 900.0, "timeout": True},
        ],
    }


def test_every_target_has_a_chart_and_every_chart_a_line_of_ours():
    data = series({"sizes": {"10k": _entry(10_000, 1), "100k": _entry(100_000, 10)}})
    assert [key for key, _ in CHARTS] == list(TARGETS)
    for key in TARGETS:
        ours = [name for name in data if name.startswith(key + ":") and "ccsearch" not in name and "agentsview" not in name]
        assert ours, f"no line of ours on the {key} chart"
    assert data["first: convo-tui"] == [(10_000, 2.0), (100_000, 20.0)]  # the newest session's needle, not the old one
    assert data["cold: cold keyword"] == [(10_000, 2.5), (100_000, 25.0)]
    assert data["browser: convo-tui"] == [(10_000, 0.3), (100_000, 3.0)]
    assert data["first: ccsearch"] == [(10_000, 0.9), (100_000, 9.0)]
    assert data["all: agentsview sync"] == [(10_000, 7.0), (100_000, 70.0)]
    assert not any("slowpoke" in name for name in data)  # a peer that timed out draws nothing


def test_the_index_peak_counts_its_reader_process_too():
    with_reader = _entry(100_000, 10)
    with_reader["index"]["reader_peak_mb"] = 150.0
    data = series({"sizes": {"10k": _entry(10_000, 1), "100k": with_reader}})
    assert data["rss: convo-tui index"] == [(10_000, 450.0), (100_000, 600.0)]  # an older run, read in one process: its own


def test_an_app_that_failed_draws_no_app_figures():
    entry = _entry(10_000, 1)
    entry["app"] = {"error": "app worker failed (1)", "keystroke_p50_ms": 5.0}
    data = series({"sizes": {"10k": entry}})
    assert not any(name.startswith(("browser:", "keystroke:")) for name in data)


@pytest.mark.parametrize(("raw", "step"), [(0.6, 1.0), (88, 100.0), (1.1, 2.0), (0.26, 0.5), (20, 20.0), (2.3, 2.5)])
def test_ticks_are_steps_a_reader_can_add_up(raw, step):
    assert _nice_step(raw) == pytest.approx(step)


def test_the_plot_draws_every_chart(tmp_path: Path):
    pytest.importorskip("PIL")
    path = tmp_path / "scale.png"
    plot({"sizes": {"10k": _entry(10_000, 1), "1m": _entry(1_000_000, 100)}}, path)
    from PIL import Image

    with Image.open(path) as image:
        assert image.size == (1500, 1320)
        cell_w, cell_h = 1500 // 3, 1320 // 3
        for n, (key, _) in enumerate(CHARTS):
            left, top = (n % 3) * cell_w, (n // 3) * cell_h
            colors = dict(
                (color, count) for count, color in image.crop((left, top, left + cell_w, top + cell_h)).getcolors(1 << 16)
            )
            assert colors.get((200, 0, 0), 0) > 100, f"the {key} chart has no target line"
            assert colors.get((31, 119, 180), 0) > 50, f"the {key} chart has no first line"


def test_a_size_rerun_without_peers_keeps_the_last_runs_peers():
    previous = {"peers": [{"tool": "ccsearch"}], "command": "python -m bench.scale --sizes 10k"}
    entry: dict = {"size": "10k"}
    keep_peers(entry, previous)
    assert entry["peers"] == [{"tool": "ccsearch"}]
    assert entry["peers_from"] == "python -m bench.scale --sizes 10k"
    fresh: dict = {"peers": []}
    keep_peers(fresh, previous)
    assert fresh["peers"] == []  # the peers ran again (and found nothing): that stands


def test_the_whole_index_commands_have_a_row_once_measured():
    from bench.scale_report import size_rows

    entry = _entry(10_000, 1)
    entry["history"].update(sessions=440, bytes=57e6, largest_bytes=6e6)
    assert not any("stats" in name for name, _ in size_rows(entry))  # runs before the twentieth session
    entry["cli"]["cold sessions"] = {"p50_ms": 1200.0, "peak_mb": 160}
    entry["cli"]["cold stats"] = {"p50_ms": 1400.0, "peak_mb": 165}
    rows = dict(size_rows(entry))
    assert rows["cold `sessions` / `stats` p50 (peak RSS)"] == "1200.0 ms (160 MB) / 1400.0 ms (165 MB)"


def test_a_phase_two_run_again_replaces_only_the_phase_two_figures_and_projects_from_every_text():
    """`--phases semantic`: the rate of the code of now over every text of the index;
    the other figures stay the last run's, and the entry says where each came from."""
    last = _entry(1_000_000, 100)
    last["command"] = "python -m bench.scale --sizes 1m --phases all"
    last["index"]["indexed"].update(texts_per_second=30.0, points_per_second=31.0, semantic_total=445_179)
    run = {
        "texts_per_second": 40.0,
        "points_per_second": 41.0,
        "semantic_total": 445_179,
        "semantic_ready": 24_600,
        "vectors_added": 24_600,
        "stopped_by_budget": True,
        "peak_mb": 700,
        "keyword_done": 3.0,
    }
    entry = with_phase2(last, run, [[1.0], [2.0]])
    indexed = entry["index"]["indexed"]
    assert indexed["texts_per_second"] == 40.0 and indexed["semantic_ready"] == 24_600
    assert indexed["projected_semantic_seconds"] == round(445_179 / 41.0, 1)  # from scratch, not from what was left
    assert indexed["keyword_done"] == 4000.0  # phase 1's figure is the last run's, not the resumed run's 3 s
    assert entry["index"]["peak_rss_mb"] == 450.0 and indexed["semantic_peak_mb"] == 700
    assert entry["index_from"] == last["command"] and entry["index"]["semantic_from"]
    assert entry["search"] == last["search"] and last["index"]["indexed"]["texts_per_second"] == 30.0  # the last run untouched
    assert series({"sizes": {"1m": entry}})["semantic: convo-tui"] == [(1_000_000, round(445_179 / 41.0, 1) / 3600)]
