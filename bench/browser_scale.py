"""The app at 45,000 sessions (issue 25, item 6): `python -m bench.browser_scale [--sessions N] [--out DIR]`.

Builds (once, cached under DIR/browser-N) an index of N generated Cursor
sessions of one or two exchanges each, with the project's own Indexer and
bench/cheap.py's hashing embedder: what the browser costs depends on the
number of sessions, not on their length or on where the vectors came from
(each figure below says so). Then drives the real app headless (Textual's
Pilot, as tests/tui does) and records:

- the sessions browser: F3 to the first rows drawn with the list's count, the
  first time (the engine reads its rows) and again; and what the browser before
  this change paid before drawing anything: `Engine.sessions()`, every summary;
- typing: a key in the browser's filter and in the search box to the frame that
  shows it (the UI thread's share: under one frame, 16.7 ms, is the target), and
  to the filtered list (a fuzzy match over every title, in a worker);
- scrolling: pgdn in the list to the rows drawn.

Writes DIR/browser-scale.json and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench import vocab

FRAME = 1 / 60
PROJECTS = [f"{name}-{n}" for n in range(8) for name in vocab.PROJECTS]  # 64 projects


def write_sessions(root: Path, count: int, seed: int = 25) -> list[Path]:
    """`count` short Cursor transcripts over three years, under 64 project folders."""
    rng = random.Random(seed)
    topics = list(vocab.TOPICS)
    end = datetime(2026, 11, 1, tzinfo=UTC)
    files = []
    for n in range(count):
        project = rng.choice(PROJECTS)
        english, _ = vocab.TOPICS[rng.choice(topics)]
        parts = []
        for _ in range(rng.randint(1, 2)):
            noun, noun2 = rng.sample(english, 2)
            question = rng.choice(vocab.EN_QUESTION).format(verb=rng.choice(vocab.EN_VERBS), noun=noun, noun2=noun2)
            answer = rng.choice(vocab.EN_ANSWER).format(verb=rng.choice(vocab.EN_VERBS), noun=noun, noun2=noun2)
            parts.append(f"user:\n{question} (#{n})\n\nassistant:\n{answer}\n")
        folder = root / f"Users-dev-code-{project}" / "agent-transcripts"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{n:06d}.txt"
        path.write_text("\n".join(parts), encoding="utf-8")
        stamp = (end - timedelta(minutes=rng.randint(0, 3 * 365 * 24 * 60))).timestamp()
        os.utime(path, (stamp, stamp))
        files.append(path)
    return files


def build(out: Path, count: int) -> tuple[Path, dict[str, float]]:
    """The index folder (built once per size) and what building it cost."""
    from convo_tui.core.embed.sparse import SparseEmbedder
    from convo_tui.core.index.manifest import Manifest
    from convo_tui.core.index.publish import Indexer

    from bench.build import open_edge, write_model_meta
    from bench.cheap import CheapEmbedder

    folder = out / f"browser-{count}"
    done = folder / "built.json"
    if done.is_file():
        return folder / "index", json.loads(done.read_text())
    started = time.perf_counter()
    files = write_sessions(folder / "src", count)
    written = time.perf_counter()
    store = open_edge(folder / "index")
    report = Indexer(store, Manifest.load(folder / "index"), CheapEmbedder(), SparseEmbedder()).run(files)
    write_model_meta(store, CheapEmbedder())
    store.close()
    cost = {"write_s": written - started, "index_s": time.perf_counter() - written, "sessions": report.sessions}
    done.write_text(json.dumps(cost))
    return folder / "index", cost


async def _drive(index_dir: Path) -> dict[str, object]:
    from convo_tui.core.library import Library
    from convo_tui.core.settings import Settings
    from convo_tui.tui.app import create_app
    from convo_tui.tui.screens.sessions import SessionsScreen
    from textual import events

    from bench.measure_app import _key_event

    settings = Settings(index_dir=index_dir, discover_defaults=False, debounce_ms=1, search_mode="keyword")
    library = Library.open(settings)
    figures: dict[str, object] = {}
    with_every = time.perf_counter()
    everything = library.sessions()
    figures["engine_sessions_all_s"] = time.perf_counter() - with_every
    figures["sessions"] = len(everything)
    del everything
    library.catalogue.invalidate()  # the browser's first open pays for reading its rows
    app = create_app(settings, library=library, index_on_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.2)

        async def open_browser() -> float:
            started = time.perf_counter()
            # Posted as a terminal's key: `pilot.press` waits until every thread is idle
            # (bench/scale_workers.py, _sessions_browser), not until the rows are shown.
            app.post_message(events.Key("f3", None))
            while True:
                screen = app.screen
                if isinstance(screen, SessionsScreen) and screen.counts is not None and screen.entry_at(0) is not None:
                    break
                await asyncio.sleep(0.001)
            await screen.wait_for_refresh()
            return time.perf_counter() - started

        figures["browser_open_first_s"] = await open_browser()
        assert isinstance(app.screen, SessionsScreen)
        figures["browser_count_line"] = str(app.screen.query_one("#sessions-count").render())
        await pilot.press("escape")
        await pilot.pause(0.2)
        figures["browser_open_again_s"] = await open_browser()
        screen = app.screen
        assert isinstance(screen, SessionsScreen)

        # Typing in the filter: the frame that shows the key, then the filtered list.
        box = screen.query_one("#session-filter")
        echo, filtered = [], []
        for char in "qdrant snapshot":
            before_generation = screen._generation
            started = time.perf_counter()
            app.post_message(_key_event(char))
            while not box.value.endswith(char):
                await asyncio.sleep(0.0005)
            await screen.wait_for_refresh()
            echo.append(time.perf_counter() - started)
            while screen._reading == before_generation or screen._reading != screen._generation:
                await asyncio.sleep(0.001)
            await screen.wait_for_refresh()
            filtered.append(time.perf_counter() - started)
            await pilot.pause(0.05)
        figures["filter_key_echo_ms"] = _summary(echo)
        figures["filter_key_to_list_ms"] = _summary(filtered)
        figures["filter_count_line"] = str(screen.query_one("#sessions-count").render())

        # Scrolling the whole list: pgdn to the rows drawn.
        await pilot.press("ctrl+u")  # empty the filter: the whole list again
        while screen.filter_text or screen._reading != screen._generation:
            await asyncio.sleep(0.001)
        await pilot.press("down")
        scrolled = []
        for _ in range(60):
            started = time.perf_counter()
            await pilot.press("pagedown")
            listing = screen.listing
            while listing.highlighted is None or screen.entry_at(listing.highlighted) is None:
                await asyncio.sleep(0.0005)
            await screen.wait_for_refresh()
            scrolled.append(time.perf_counter() - started)
        figures["list_pagedown_ms"] = _summary(scrolled)
        await pilot.press("escape", "escape")
        await pilot.pause(0.2)

        # Typing in the search box at this size: the frame that shows the key.
        search = app.search_screen
        echoes = []
        for char in "payload index":
            started = time.perf_counter()
            app.post_message(_key_event(char))
            while not search.query_box.value.endswith(char):
                await asyncio.sleep(0.0005)
            await search.wait_for_refresh()
            echoes.append(time.perf_counter() - started)
            await pilot.pause(0.05)
        figures["search_key_echo_ms"] = _summary(echoes)
    library.close()
    return figures


def _summary(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "p50": round(1000 * statistics.median(ordered), 1),
        "p95": round(1000 * ordered[max(0, round(0.95 * len(ordered)) - 1)], 1),
        "max": round(1000 * ordered[-1], 1),
        "n": len(ordered),
    }


def markdown(figures: dict[str, object], build_cost: dict[str, float]) -> str:
    rows = [
        ("sessions in the index", f"{figures['sessions']:,}"),
        (
            "build (cheap embedder, not the real model)",
            f"{build_cost['write_s']:.0f} s writing + {build_cost['index_s']:.0f} s indexing",
        ),
        ("sessions browser, F3 to first rows (first open: rows read)", f"{figures['browser_open_first_s']:.2f} s"),
        ("sessions browser, F3 to first rows (again)", f"{figures['browser_open_again_s']:.2f} s"),
        ("the old browser's read before any row: Engine.sessions()", f"{figures['engine_sessions_all_s']:.2f} s"),
    ]
    for key, label in (
        ("filter_key_echo_ms", "browser filter: key to its frame (ms)"),
        ("filter_key_to_list_ms", "browser filter: key to the filtered list (ms, 80 ms wait for the next key included)"),
        ("list_pagedown_ms", "browser list: pgdn to rows drawn (ms)"),
        ("search_key_echo_ms", "search box: key to its frame (ms)"),
    ):
        s = figures[key]
        assert isinstance(s, dict)
        rows.append((label, f"p50 {s['p50']} · p95 {s['p95']} · max {s['max']} (n={s['n']})"))
    lines = ["| figure | value |", "|---|---|", *[f"| {a} | {b} |" for a, b in rows]]
    return "\n".join(lines) + f"\n\nOne frame at 60 Hz is {1000 * FRAME:.1f} ms.\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.browser_scale", description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=45_000)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    index_dir, cost = build(args.out, args.sessions)
    figures = asyncio.run(_drive(index_dir))
    with open("/proc/loadavg", encoding="ascii") as load:
        figures["loadavg"] = load.read().split()[:3]
    figures["build"] = cost
    (args.out / "browser-scale.json").write_text(json.dumps(figures, indent=1))
    print(markdown(figures, cost))
    print(f"load average: {' '.join(figures['loadavg'])}")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
