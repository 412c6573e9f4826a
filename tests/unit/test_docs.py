"""docs/ARCHITECTURE.md cannot drift from the code: every figure and name it
quotes is checked here against the constant it describes.

When a constant changes, this test names the sentence to update. The checks are
of the form "the doc says exactly this, built from the code's value", so an old
figure left in the doc is caught by the `STALE` list below as well.
"""

from __future__ import annotations

import re

import pytest
from convo_tui.core.embed import choice
from convo_tui.core.embed.e5_onnx import E5Onnx
from convo_tui.core.holder import protocol
from convo_tui.core.holder.ops import OPERATIONS
from convo_tui.core.index import batches, chunks, dense_phase, keyword_parts, points
from convo_tui.core.search import fusion, fuzzy, merge
from convo_tui.core.sources import reader_modules
from convo_tui.core.store import space

from tests.paths import ROOT

DOC = ROOT / "docs" / "ARCHITECTURE.md"


def _n(value: float) -> str:
    """A number as the doc writes it: 16,000; 0.25; 92%."""
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def _doc() -> str:
    # Line breaks in prose are spaces; code spans keep their text.
    return re.sub(r"\s+", " ", DOC.read_text(encoding="utf-8"))


def quotes() -> list[tuple[str, str]]:
    """(what the doc must say, where the value comes from)."""
    minilm = fusion.dense_scale("all-MiniLM-L6-v2-int8")
    e5 = fusion.dense_scale("multilingual-e5-small")
    return [
        (f"up to {_n(points.TURN_TEXT_CHARS)} characters", "points.TURN_TEXT_CHARS"),
        (
            f"{chunks.CHUNK_TOKENS} word pieces, {chunks.CHUNK_OVERLAP} overlapping, at most "
            f"{points.MAX_DENSE_CHUNKS} dense chunks",
            "chunks.CHUNK_TOKENS / CHUNK_OVERLAP, points.MAX_DENSE_CHUNKS",
        ),
        (
            f"thinking (capped at {_n(keyword_parts.KEYWORD_CAPS[keyword_parts.PART_THINKING])} characters)",
            "keyword_parts.KEYWORD_CAPS",
        ),
        (
            f"input ({_n(keyword_parts.KEYWORD_CAPS[keyword_parts.PART_TOOL_INPUT])}) and output "
            f"({_n(keyword_parts.KEYWORD_CAPS[keyword_parts.PART_TOOL_OUTPUT])})",
            "keyword_parts.KEYWORD_CAPS",
        ),
        (f"({_n(keyword_parts.KEYWORD_CAPS[keyword_parts.PART_MESSAGE])})", "keyword_parts.KEYWORD_CAPS (message tail)"),
        (f"{_n(keyword_parts.KEYWORD_CHUNK_CHARS)}-character pieces", "keyword_parts.KEYWORD_CHUNK_CHARS"),
        (f"in batches of at most {_n(batches.BATCH_TEXTS)} texts or {_n(batches.PUBLISH_SECONDS)} s", "batches.BATCH_TEXTS"),
        (f"in rounds of about {dense_phase.ROUND_TEXTS} texts", "dense_phase.ROUND_TEXTS"),
        (f"calls of about {_n(E5Onnx.batch_tokens)} estimated word pieces", "E5Onnx.batch_tokens"),
        (f"at most {dense_phase.MAX_BATCH} texts", "dense_phase.MAX_BATCH"),
        (f"MiniLM {_n(minilm.floor)}..{_n(minilm.ceiling)}, e5 {_n(e5.floor)}..{_n(e5.ceiling)}", "fusion scales"),
        (f"(MiniLM {_n(minilm.weight)}, e5 {_n(e5.weight)})", "fusion weights"),
        (f"(MiniLM {_n(minilm.noise)}, e5 {_n(e5.noise)})", "fusion noise floors"),
        (f"cards under {_n(fusion.RELEVANCE_FLOOR)} are dropped", "fusion.RELEVANCE_FLOOR"),
        (f"`TURN_BONUS` is {_n(merge.TURN_BONUS)}", "merge.TURN_BONUS"),
        (f"at least {merge.DUPLICATE_RATIO:g}% alike", "merge.DUPLICATE_RATIO"),
        (f"holds at most {_n(fuzzy.FUZZY_SCAN_LIMIT)}, else over {fuzzy.FUZZY_CANDIDATES} candidates", "fuzzy mode"),
        (
            f"at least {choice.FAST_CJK_SHARE:.0%} of the newest {choice.SAMPLE_BYTES // 1_000_000} MB",
            "choice.FAST_CJK_SHARE / SAMPLE_BYTES",
        ),
        (f"at least {choice.CJK_SHARE:.0%} of the newest {choice.SAMPLE_BYTES // 1_000_000} MB", "choice.CJK_SHARE"),
        (
            f"heartbeats every {'second' if protocol.HEARTBEAT == 1.0 else f'{protocol.HEARTBEAT:g} seconds'}",
            "protocol.HEARTBEAT",
        ),
        (f"({protocol.DEFAULT_TIMEOUT:g} s, `{protocol.TIMEOUT_ENV}`)", "protocol timeout"),
        (f"(version {protocol.VERSION})", "protocol.VERSION"),
        (f"({space.READ_RESERVE // space.MB} MB, more on tmpfs)", "space.READ_RESERVE"),
        (f"before every write ({space.WRITE_RESERVE // space.MB} MB)", "space.WRITE_RESERVE"),
    ]


# Figures the code no longer has, which must not come back into the doc.
STALE = ["1,536 word pieces (at most", "RemoteLibrary", "core/pairing.py", "Not served yet"]


@pytest.mark.parametrize(("said", "source"), quotes(), ids=[q[1] for q in quotes()])
def test_the_doc_quotes_the_codes_figures(said, source):
    assert said in _doc(), f"docs/ARCHITECTURE.md should say {said!r} ({source})"


def test_no_stale_figure_is_left():
    doc = _doc()
    assert [s for s in STALE if s in doc] == []


def test_the_doc_lists_every_served_operation_and_no_other():
    doc = _doc()
    listed = re.search(r"by its own name: ((?:`\w+`(?:, |\.))+)", doc)
    assert listed, "the holder section lists the operations"
    assert re.findall(r"`(\w+)`", listed.group(1)) == list(OPERATIONS)


def test_the_doc_names_every_source_format_in_recognition_order():
    doc = _doc()
    listed = re.search(r"the first of `_MODULES` that accepts the file wins: (.*?)\. Each turns", doc)
    assert listed
    assert re.findall(r"`(\w+)`", listed.group(1)) == reader_modules()


def test_the_doc_describes_every_screen():
    doc = _doc()
    screens = sorted(p.stem for p in (ROOT / "tui" / "screens").glob("*.py") if p.stem != "__init__")
    assert [s for s in screens if f"`{s}.py`" not in doc] == []


def test_every_core_folder_is_in_the_layout():
    doc = _doc()
    folders = sorted(p.name for p in (ROOT / "core").iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert [f for f in folders if f"core/{f}/" not in doc] == []
