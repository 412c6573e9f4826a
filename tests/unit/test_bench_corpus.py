"""The benchmark corpus is deterministic and parses into sessions of the intended shape."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

from convo_tui.core.sources import parse_path

from bench.corpus import chunks, estimate_tokens, render_cursor, sessions_for, touch_fraction, write_corpus


def _digest(root: Path) -> dict[str, tuple[str, int]]:
    return {
        str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest(), int(p.stat().st_mtime))
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_same_seed_same_bytes_and_mtimes(tmp_path: Path) -> None:
    a = write_corpus(tmp_path / "a", 600)
    b = write_corpus(tmp_path / "b", 600)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")
    assert (a.sessions, a.messages, a.estimated_points) == (b.sessions, b.messages, b.estimated_points)


def test_other_seed_other_corpus(tmp_path: Path) -> None:
    write_corpus(tmp_path / "a", 300, seed=1)
    write_corpus(tmp_path / "b", 300, seed=2)
    assert _digest(tmp_path / "a") != _digest(tmp_path / "b")


def test_smaller_size_is_a_prefix_of_larger() -> None:
    small = sessions_for(1_000)
    large = sessions_for(3_000)
    assert [s.id for s in small] == [s.id for s in large[: len(small)]]
    assert sum(s.estimated_points() for s in small) >= 1_000
    assert sum(s.estimated_points() for s in small[:-1]) < 1_000


def test_corpus_has_the_realistic_mix() -> None:
    sessions = sessions_for(5_000)
    messages = [m for s in sessions for m in s.messages]
    texts = [m.text for m in messages]
    assert len({s.project for s in sessions}) >= 6
    assert {s.source for s in sessions} == {"cursor", "claude"}
    assert any(estimate_tokens(t) > 512 for t in texts)  # beyond the 256-token window
    assert sum(1 for t in texts if estimate_tokens(t) < 60) > len(texts) // 3  # many short ones
    assert any("\u4e00" <= ch <= "\u9fff" for t in texts for ch in t)  # Chinese
    assert any(m.thinking for m in messages)
    big_args = [v for m in messages for tool in m.tools for v in tool.args.values() if v.count("\n") >= 20]
    assert big_args  # tool calls with large multi-line arguments
    stamps = [m.timestamp for m in messages if m.timestamp]
    assert (max(stamps) - min(stamps)).days > 600  # dates over two years


def test_chunk_estimate() -> None:
    assert chunks("short text") == 1
    assert chunks(" ".join(["word"] * 400)) == 3  # 520 tokens at 1.3 per word, 180 a chunk
    assert estimate_tokens("向量库") == 3


def test_every_file_parses_into_the_generated_messages(tmp_path: Path) -> None:
    stats = write_corpus(tmp_path, 400)
    generated = {s.id: s for s in sessions_for(400)}
    assert {p.suffix for p in stats.files} == {".txt", ".jsonl"}
    for path in stats.files:
        (session,) = parse_path(path)
        fake = generated[path.stem]
        assert session.source == ("claude-code" if path.suffix == ".jsonl" else "cursor")
        assert [m.role for m in session.messages] == [m.role for m in fake.messages]
        assert [m.text for m in session.messages] == [m.text for m in fake.messages]
        assert [[(t.name, t.args) for t in m.tools] for m in session.messages] == [
            [(t.name, t.args) for t in m.tools] for m in fake.messages
        ]
        assert [m.thinking.strip() for m in session.messages] == [m.thinking for m in fake.messages]
        assert session.project == fake.project
        assert len(session.turns) == fake.turns


def test_large_tool_argument_survives_cursor_parsing(tmp_path: Path) -> None:
    fake = next(
        s for s in sessions_for(5_000) if s.source == "cursor" and any(t.name == "Write" for m in s.messages for t in m.tools)
    )
    path = tmp_path / "Users-dev-code-x" / "agent-transcripts" / f"{fake.id}.txt"
    path.parent.mkdir(parents=True)
    path.write_text(render_cursor(fake), encoding="utf-8")
    (session,) = parse_path(path)
    expected = [t.args for m in fake.messages for t in m.tools if t.name == "Write"]
    got = [t.args for m in session.messages for t in m.tools if t.name == "Write"]
    assert [a["contents"] for a in got] == [a["contents"] for a in expected]


def test_claude_files_are_valid_jsonl_with_parent_links(tmp_path: Path) -> None:
    stats = write_corpus(tmp_path, 400)
    claude_files = [p for p in stats.files if p.suffix == ".jsonl"]
    assert claude_files
    for path in claude_files:
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert lines[0]["parentUuid"] is None
        assert all(b["parentUuid"] == a["uuid"] for a, b in itertools.pairwise(lines))
        assert {line["type"] for line in lines} <= {"user", "assistant"}
        assert all(line["sessionId"] == path.stem for line in lines)


def test_touch_fraction_changes_exactly_that_many_files(tmp_path: Path) -> None:
    stats = write_corpus(tmp_path, 2_000)
    before = _digest(tmp_path)
    changed = touch_fraction(stats, 0.1)
    after = _digest(tmp_path)
    assert len(changed) == round(stats.sessions * 0.1)
    assert sorted(k for k in before if before[k] != after[k]) == sorted(str(p.relative_to(tmp_path)) for p in changed)


def test_the_bench_report_goes_to_bench_out_on_a_fresh_clone(tmp_path: Path, monkeypatch) -> None:
    """Issue 23: `python -m bench --quick` failed with FileNotFoundError: bench/out/scale.md
    (the folder is git-ignored, so a fresh clone has none). Rendered from the stored results."""
    from bench.__main__ import main
    from tests.paths import ROOT

    monkeypatch.chdir(tmp_path)  # a checkout without bench/out/
    assert main(["--render", str(ROOT / "bench" / "results.json"), "--out", str(tmp_path / "results.json")]) == 0
    assert (tmp_path / "bench" / "out" / "scale.md").read_text(encoding="utf-8").strip()
