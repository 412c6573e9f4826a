"""Build the 100k-point Edge index the memory probe measures, once.

Run as `python -m bench.build_memory_index FOLDER [POINTS] [--model NAME]`: writes the bench's
synthetic corpus and indexes it with the cheap embedder (bench/cheap.py) the
same way `python -m bench` does; the index lands in FOLDER/edge. Then measure
it with `python -m bench.measure_memory FOLDER/edge 2`. `--model` names the
model the index says it was built with (the one a search then loads: default
the bundled MiniLM; `multilingual-e5-small` for the model `auto` picks for a
history with Chinese, Japanese or Korean).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from convo_tui.core.settings import DEFAULT_MODEL


def build_index(folder: Path, points: int, model: str = DEFAULT_MODEL) -> Path:
    from convo_tui.core.embed.dense import shared_dense
    from convo_tui.core.embed.sparse import SparseEmbedder

    from bench.build import build, open_edge
    from bench.cheap import CheapEmbedder
    from bench.corpus import write_corpus

    dense = shared_dense(model)
    cheap = CheapEmbedder(dense.dim, dense.name, dense.tokenizer, dense.window)
    corpus = write_corpus(folder / "corpus", points)
    edge_dir = folder / "edge"
    built = build(open_edge(edge_dir), edge_dir, corpus.files, cheap, SparseEmbedder())
    built.store.close()
    print(f"{built.report.points} points in {edge_dir}", flush=True)
    return edge_dir


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.build_memory_index")
    parser.add_argument("folder", type=Path)
    parser.add_argument("points", type=int, nargs="?", default=100_000, help="corpus size knob (68000 gives ~100k points)")
    parser.add_argument("--model", default=DEFAULT_MODEL, help="the model the index is built for (the one a search loads)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    build_index(args.folder, args.points, args.model)
    print(f"built in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
