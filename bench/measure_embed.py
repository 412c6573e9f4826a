"""What makes bulk embedding fast on this machine: arena, batch shape, threads.

    python -m bench.measure_embed [--points 3000] [--out bench/results-embed.json]

Each configuration runs in its own process (peak RSS is per process) over the
same distinct texts the indexer embeds for a generated corpus, and is compared
with raw fastembed (`TextEmbedding.embed(texts)`, its defaults) on those texts.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIGS = {
    "raw fastembed (defaults, batch 32)": {"raw": True, "batch": 32},
    "ours before: arena off, batch 64, sorted": {"arena": False, "batch": 64},
    "arena on, batch 64, sorted": {"arena": True, "batch": 64},
    "arena off, batch 16, sorted": {"arena": False, "batch": 16},
    "arena on, batch 16, sorted": {"arena": True, "batch": 16},
    "arena off, token budget 4096 (max 32), sorted": {"arena": False, "tokens": 4096},
    "arena on, token budget 4096 (max 32), sorted": {"arena": True, "tokens": 4096},
    "arena on, token budget 8192 (max 64), sorted": {"arena": True, "tokens": 8192, "max_batch": 64},
}


def corpus_texts(points: int) -> list[str]:
    from convo_tui.core.embed.dense import shared_dense
    from convo_tui.core.settings import DEFAULT_MODEL

    from bench.build import embedded_texts
    from bench.corpus import write_corpus

    with tempfile.TemporaryDirectory() as folder:
        stats = write_corpus(folder, points)
        return embedded_texts(stats.files, shared_dense(DEFAULT_MODEL).tokenizer)


def run_one(config: dict, texts_file: str) -> dict:
    texts = json.loads(Path(texts_file).read_text(encoding="utf-8"))
    from convo_tui.core.embed.bundled import fastembed_bundled
    from convo_tui.core.embed.dense import DenseEmbedder
    from convo_tui.core.settings import DEFAULT_MODEL

    if config.get("raw"):
        model = fastembed_bundled()
        started = time.perf_counter()
        count = sum(1 for _ in model.embed(texts, batch_size=config["batch"]))
    else:
        from convo_tui.core.index.dense_phase import token_batches

        batch_size = config.get("batch", config.get("max_batch", 32))
        embedder = DenseEmbedder(DEFAULT_MODEL, batch_size=batch_size, arena=config["arena"])
        started = time.perf_counter()
        count = 0
        if "tokens" in config:
            for batch in token_batches(texts, config["tokens"], config.get("max_batch", 32)):
                count += len(embedder.embed_documents(batch))
        else:
            count = len(embedder.embed_documents(texts))
    seconds = time.perf_counter() - started
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"texts": count, "seconds": seconds, "per_second": count / seconds, "peak_rss_mb": rss / 1e6}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.measure_embed")
    parser.add_argument("--points", type=int, default=3000)
    parser.add_argument("--out", type=Path, default=Path("bench/results-embed.json"))
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--texts", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(CONFIGS[args.one], args.texts)))
        return 0
    texts = corpus_texts(args.points)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as handle:
        json.dump(texts, handle)
    results = {"texts": len(texts), "configs": {}}
    try:
        for name in CONFIGS:
            out = subprocess.run(
                [sys.executable, "-m", "bench.measure_embed", "--one", name, "--texts", handle.name],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            results["configs"][name] = json.loads(out.strip().splitlines()[-1])
            row = results["configs"][name]
            print(f"{name:<50} {row['per_second']:7.1f} texts/s  {row['peak_rss_mb']:6.0f} MB", flush=True)
    finally:
        os.unlink(handle.name)
    args.out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
