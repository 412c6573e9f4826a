"""The parser fuzzers of tests/unit/test_fuzz_parsers.py, run long: many random examples
and a random seed each run, every reader and `stream_path` with small parts. Not part of
the suite (a few minutes on two cores); run it after touching a reader:

    PYTHONPATH=tests python -m tests.deep_fuzz [EXAMPLES]   (from the repository)

It prints one line a sample or format, the shrunk failing file of each failure, and
exits 1 if anything failed. Its first run (1,500 examples) found the lone-surrogate
crash of `index`, SQLite's two-line errors and Aider's duplicate ids.
"""

from __future__ import annotations

import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path

from convo_tui.core.errors import ParseError
from convo_tui.core.sources import stream_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit import test_fuzz_parsers as fuzz


def _settings(examples: int) -> settings:
    return settings(
        max_examples=examples, deadline=None, database=None, derandomize=False, suppress_health_check=list(HealthCheck)
    )


def _mutated(sample: fuzz.Sample, examples: int) -> Callable[[], None]:
    root = Path(tempfile.mkdtemp(prefix="deep-fuzz-"))

    @_settings(examples)
    @given(st.data())
    def run(data: st.DataObject) -> None:
        fuzz.check_parse(sample.fmt, sample.place(root, data.draw(fuzz.mutated(sample.data))))

    return run


def _random(sample: fuzz.Sample, examples: int) -> Callable[[], None]:
    root = Path(tempfile.mkdtemp(prefix="deep-fuzz-"))
    text = st.text(max_size=2048).map(lambda t: t.encode("utf-8", "surrogatepass"))

    @_settings(examples)
    @given(st.binary(max_size=4096) | text)
    def run(data: bytes) -> None:
        path = sample.place(root, data)
        detected = fuzz.check_detected_parse(path)
        for other in fuzz.FORMATS:
            fuzz.check_own_parse(other, path, detected)

    return run


def _streamed(sample: fuzz.Sample, examples: int) -> Callable[[], None]:
    root = Path(tempfile.mkdtemp(prefix="deep-fuzz-"))

    @_settings(examples)
    @given(st.data(), st.integers(1, 400))
    def run(data: st.DataObject, part_chars: int) -> None:
        path = sample.place(root, data.draw(fuzz.mutated(sample.data)))
        try:
            parts = list(stream_path(path, part_chars))
        except ParseError as exc:
            assert "\n" not in str(exc), str(exc)
            return
        assert parts and parts[-1].last
        for part in parts:
            "\n".join(m.text for m in part.session.messages).encode("utf-8")

    return run


def main(argv: list[str]) -> int:
    examples = int(argv[0]) if argv else 1500
    runs = [(f"mutated {s.id}", _mutated(s, examples)) for s in fuzz.ALL_SAMPLES]
    runs += [(f"random {f.name}", _random(fuzz.sample_for(f), examples)) for f in fuzz.FORMATS]
    runs += [(f"streamed {s.id}", _streamed(s, examples)) for s in fuzz.ALL_SAMPLES if s.fmt.stream is not None]
    failed = 0
    for name, run in runs:
        try:
            run()
        except Exception as exc:  # hypothesis raises the shrunk example's failure
            failed += 1
            print(f"FAIL {name}: {''.join(traceback.format_exception_only(type(exc), exc))[:2000]}", flush=True)
        else:
            print(f"ok {name}", flush=True)
    print(f"{failed} of {len(runs)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
