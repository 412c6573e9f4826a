"""`python -m bench [--quick] [--sizes 1k,10k,100k] [--out bench/results.json]`."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

SIZES = {"1k": 1_000, "10k": 10_000, "100k": 100_000}


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench", description="Speed, scale and memory of convo-tui, with peers measured in the same run."
    )
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer queries (under 5 minutes on 2 cores)")
    parser.add_argument("--sizes", help="comma-separated corpus sizes in index points, e.g. 1k,10k,100k or 5000")
    parser.add_argument("--out", type=Path, default=Path("bench/results.json"), help="where the JSON results go")
    parser.add_argument(
        "--markdown",
        type=Path,
        default=Path("bench/out/scale.md"),
        help="where the report goes ('-' for none; BENCHMARKS.md is edited by hand)",
    )
    parser.add_argument("--workdir", type=Path, help="keep corpora and indexes here (default: a temp folder, removed)")
    parser.add_argument(
        "--render", type=Path, metavar="RESULTS_JSON", help="only re-render the report (and the explanations) from a results.json"
    )
    parser.add_argument("--local-max", type=int, help="largest size also built in qdrant-client local mode (default 10k)")
    return parser.parse_args(argv)


def parse_size(text: str) -> tuple[str, int]:
    text = text.strip().lower()
    if text in SIZES:
        return text, SIZES[text]
    number = int(float(text[:-1]) * 1000) if text.endswith("k") else int(text)
    if number <= 0:
        raise ValueError(text)
    return (f"{number // 1000}k" if number % 1000 == 0 else str(number)), number


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.render:
        return render(args.render, args.out, args.markdown)
    default = "1k,10k" if args.quick else "1k,10k,100k"
    try:
        sizes = sorted((parse_size(s) for s in (args.sizes or default).split(",") if s.strip()), key=lambda s: s[1])
    except ValueError as exc:
        print(f"bench: bad --sizes value: {exc}", file=sys.stderr)
        return 2
    from bench.run import run

    command = "python -m bench " + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
    return run(
        sizes,
        quick=args.quick,
        out=args.out,
        markdown=None if str(args.markdown) == "-" else args.markdown,
        workdir=args.workdir,
        local_max=args.local_max,
        command=command.strip(),
    )


def render(source: Path, out: Path, markdown: Path) -> int:
    from bench.explain import explain
    from bench.report import print_table, read_json, write_json, write_markdown

    results = read_json(source)
    for figure in results.figures:
        figure.why = ""
    explain(results)
    print_table(results)
    write_json(results, out)
    if str(markdown) != "-":
        write_markdown(results, markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
