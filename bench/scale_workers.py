"""The processes the scale bench starts: each prints one JSON object a line.

    python -m bench.scale_workers index INDEX_DIR BUDGET ROOT...
    python -m bench.scale_workers search INDEX_DIR QUERIES_JSON
    python -m bench.scale_workers app INDEX_DIR QUERIES_JSON

`index` is `convo-tui index` as the library runs it (the real store, the real
model, newest first), holding the index and serving it to other processes
while it works, as the command does; it reports when the first sessions are
published, when phase 1 ends and phase 2's progress. With a BUDGET (seconds),
phase 2 stops after that long and the rest is projected from its rate.
`search` times in-process searches per mode; `app` times the sessions browser
and keystrokes in the real app (Textual's Pilot, headless).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

from bench.stats import percentile

STARTED = time.perf_counter()


# The children's CPU before phase 1 (a first run on a machine builds the int8
# model in a child: core/embed/int8.py), and the highest VmHWM of a live child
# seen so far: RUSAGE_CHILDREN's peak would be that build's 421 MB, not the reader's.
_BEFORE = {"children_cpu": 0.0}
_CHILD_PEAK = {"mb": 0}


def _status_peak(pid: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def watch_children() -> None:
    """Note the peak RSS of this process's live children (phase 1's reader process)."""
    for task in Path("/proc/self/task").iterdir():
        try:
            pids = (task / "children").read_text().split()
        except OSError:
            continue
        for pid in pids:
            _CHILD_PEAK["mb"] = max(_CHILD_PEAK["mb"], _status_peak(pid))


def _children_cpu() -> float:
    import resource

    reader = resource.getrusage(resource.RUSAGE_CHILDREN)
    return reader.ru_utime + reader.ru_stime


def usage() -> dict[str, float]:
    """CPU seconds so far (user + system: what the machine's load does not change)
    and the peak RSS so far (VmHWM, MB), of this process and of its reader process
    (its CPU once it has ended; its peak as last seen by `watch_children`)."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    watch_children()
    return {
        "cpu": round(own.ru_utime + own.ru_stime, 2),
        "peak_mb": _status_peak("self"),
        "reader_cpu": round(_children_cpu() - _BEFORE["children_cpu"], 2),
        "reader_peak_mb": _CHILD_PEAK["mb"],
    }


def say(**data: object) -> None:
    print(json.dumps({"t": round(time.perf_counter() - STARTED, 3), **data}), flush=True)


def index(index_dir: Path, budget: float | None, roots: list[Path]) -> int:
    from convo_tui.core.holder.access import open_local
    from convo_tui.core.settings import Settings

    library = open_local(Settings(index_dir=index_dir, discover_defaults=False))
    say(event="opened")
    # The run loads its model itself, the one it picks for these roots (`convo-tui index`
    # does the same): loading one here, before the pick, kept the default model in the
    # writer beside e5 for the whole run (+70 MB of its peak).
    marks: dict[str, float] = {}
    last = [0.0]

    def progress(p) -> None:  # type: ignore[no-untyped-def]
        now = time.perf_counter() - STARTED
        if p.phase != "model" and "model_loaded" not in marks:
            marks["model_loaded"] = now
            say(event="model_loaded", model=library.model_info().model, **usage())
            _BEFORE["children_cpu"] = _children_cpu()
        if p.phase == "index":
            watch_children()
        if p.phase == "index" and p.sessions and "first_publish" not in marks:
            marks["first_publish"] = now
            say(event="first_publish", sessions=p.sessions)
        # Phase 1 is over at its optimize (the main shard's last segment, built before
        # phase 2 begins) or, with nothing to build, at phase 2's first word.
        if p.phase in ("optimize", "semantic") and "keyword_done" not in marks:
            marks["keyword_done"] = now
            say(event="keyword_done", sessions=p.sessions, texts=p.total, **usage())
        if p.phase == "semantic" and "semantic_started" not in marks:
            marks["semantic_started"] = now
        if now - last[0] >= 10:
            last[0] = now
            say(event="progress", phase=p.phase, done=p.done, total=p.total, sessions=p.sessions)

    def over_budget() -> bool:
        started = marks.get("semantic_started")
        return budget is not None and started is not None and time.perf_counter() - STARTED - started > budget

    report = library.index(roots, progress=progress, cancel=over_budget)
    ended = time.perf_counter() - STARTED
    if report.cancelled:
        # Stopped by the budget: the next run would finish phase 2 and build the search
        # graphs; build them now, so that the searches measured next meet a settled index.
        library.store.optimize()
        library.store.flush()
    keyword_done = marks.get("keyword_done", ended)
    phase2 = ended - marks.get("semantic_started", keyword_done)
    rate = report.vectors_added / phase2 if phase2 > 0 and report.vectors_added else None
    left = report.semantic_total - report.semantic_ready
    say(
        event="indexed",
        seconds=round(ended, 2),
        keyword_seconds=round(report.keyword_seconds, 2),
        keyword_done=round(keyword_done, 2),
        semantic_seconds=round(phase2, 2),
        sessions=report.sessions,
        points=report.points,
        embedded=report.embedded,
        vectors_added=report.vectors_added,
        texts_per_second=round(report.embedded / phase2, 2) if phase2 > 0 else None,
        points_per_second=round(rate, 2) if rate else None,
        semantic_ready=report.semantic_ready,
        semantic_total=report.semantic_total,
        stopped_by_budget=report.cancelled,
        projected_semantic_seconds=round(phase2 + left / rate, 1) if rate else None,
        skipped=len(report.skipped),
        **usage(),
    )
    library.close()
    return 0


MODES = ("keyword", "hybrid", "semantic", "fuzzy")


def search(index_dir: Path, queries: list[str]) -> int:
    from convo_tui.core.library import Library
    from convo_tui.core.settings import Settings

    library = Library.open(Settings(index_dir=index_dir, discover_defaults=False))
    library.load_model()
    for query in queries[:3]:  # warm-up: first pages read from disk
        library.search(query, mode="hybrid", limit=10)
    out: dict[str, dict[str, float]] = {}
    for mode in MODES:
        times = []
        for _ in range(3):
            for query in queries:
                started = time.perf_counter()
                library.search(query, mode=mode, limit=10)
                times.append(time.perf_counter() - started)
        ms = [t * 1000 for t in times]
        # The second and third rounds alone: each query's pages read once already. Where
        # the system reclaims idle file pages (DAMON on the bench's machines), the first
        # round reads from disk what the index's last use left a minute before.
        again = ms[len(queries) :]
        out[mode] = {
            "p50": round(percentile(ms, 50), 1),
            "p95": round(percentile(ms, 95), 1),
            "n": len(ms),
            "repeat_p95": round(percentile(again, 95), 1),
        }
    started = time.perf_counter()
    library.search("project:webshop", limit=10)
    out["filters only"] = {"p50": round((time.perf_counter() - started) * 1000, 1), "n": 1}
    library.close()
    say(event="search", modes=out)
    return 0


async def _sessions_browser(app, pilot) -> float:  # type: ignore[no-untyped-def]
    """Seconds from F3 to the sessions browser showing its first rows.

    The key is posted as a terminal's would be, not through `pilot.press`: that
    returns only once the whole process is idle (Textual's wait_for_idle reads
    the CPU time of every thread), which at a million messages was 0.8 s after
    the rows were on screen, while the workers of the search screen behind it
    were still reading."""
    from convo_tui.tui.screens.sessions import SessionsScreen
    from textual import events

    started = time.perf_counter()
    app.post_message(events.Key("f3", None))
    deadline = started + 120
    while time.perf_counter() < deadline:
        screen = app.screen
        # The list is virtual (tui/widgets/session_list.py): rows exist once the
        # counts are read and the first entry is there to draw (as bench/browser_scale.py).
        if isinstance(screen, SessionsScreen) and screen.counts is not None and screen.entry_at(0) is not None:
            await screen.wait_for_refresh()
            return time.perf_counter() - started
        await asyncio.sleep(0.005)
    raise RuntimeError("the sessions browser showed no rows in 120 s")


def app(index_dir: Path, queries: list[str]) -> int:
    from convo_tui.core.library import Library
    from convo_tui.tui.app import create_app

    from bench.measure_app import keystroke_latencies, private_state, settings_for

    private_state()  # before the sessions browser's app: the user's remembered view is not the bench's
    library = Library.open(settings_for(index_dir))
    library.load_model()

    async def browse() -> float:
        application = create_app(settings_for(index_dir), library=library, index_on_start=False)
        async with application.run_test(size=(120, 40)) as pilot:
            await pilot.pause(0.2)
            return await _sessions_browser(application, pilot)

    opened = asyncio.run(browse())
    keys = keystroke_latencies(library, index_dir, queries, max_keys=40)
    library.close()
    ms = [s * 1000 for s in keys.shown]
    final = [s * 1000 for s in keys.settled]
    say(
        event="app",
        sessions_browser_seconds=round(opened, 3),
        keystroke_p50_ms=round(percentile(ms, 50), 1),
        keystroke_p95_ms=round(percentile(ms, 95), 1),
        keystroke_final_p50_ms=round(percentile(final, 50), 1),
        keystroke_final_p95_ms=round(percentile(final, 95), 1),
        search_call_p50_ms=round(percentile([s * 1000 for s in keys.searched], 50), 1) if keys.searched else None,
        keys=len(ms),
    )
    return 0


def main(argv: list[str]) -> int:
    from convo_tui.core.process import ending_process

    ending_process()  # each worker ends with its work, as `convo-tui` does (core/store/parking.py)
    kind, index_dir = argv[0], Path(argv[1])
    if kind == "index":
        from convo_tui.core.heap import share_heap_arenas

        share_heap_arenas()  # first thing, as `convo-tui index` does (cli/main.py)
        budget = float(argv[2]) if argv[2] != "none" else None
        return index(index_dir, budget, [Path(a) for a in argv[3:]])
    if kind == "search":
        return search(index_dir, json.loads(argv[2]))
    if kind == "app":
        return app(index_dir, json.loads(argv[2]))
    raise SystemExit(f"unknown worker {kind}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
