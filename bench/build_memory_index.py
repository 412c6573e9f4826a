"""Build the 100k-point Edge index the memory probe measures, once.

Run as `python -m bench.build_memory_index FOLDER [POINTS]`: writes the bench's
synthetic corpus and indexes it with the cheap embedder (bench/cheap.py) the
same way `python -m bench` does; the index lands in FOLDER/edge. Then measure
it with `python -m bench.measure_memory FOLDER/edge 2`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def build_index(folder: Path, points: int) -> Path:
    from convo_tui.core.embed import DenseEmbedder, SparseEmbedder

    from bench.build import build, open_edge
    from bench.cheap import CheapEmbedder
    from bench.corpus import write_corpus

    dense = DenseEmbedder()
    cheap = CheapEmbedder(dense.dim, dense.name, dense.tokenizer, dense.window)
    corpus = write_corpus(folder / "corpus", points)
    edge_dir = folder / "edge"
    built = build(open_edge(edge_dir), edge_dir, corpus.files, cheap, SparseEmbedder())
    built.store.close()
    print(f"{built.report.points} points in {edge_dir}", flush=True)
    return edge_dir


def main(argv: list[str]) -> int:
    started = time.perf_counter()
    build_index(Path(argv[0]), int(argv[1]) if len(argv) > 1 else 100_000)
    print(f"built in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
