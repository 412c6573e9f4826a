"""SIGKILL the indexer at seeded random points of its run; the index must survive every time.

A small corpus exists in two versions (v2 appends turns to some sessions,
rewrites others, adds new ones). The corpus flips between versions and an
indexer subprocess (tests/helpers/index_worker.py, small batches) is killed
just before a store write picked by a seeded generator (the worker pauses
there, so the same writes are interrupted however loaded the machine is). After each kill: the index opens; every visible
generation of every session is exactly its v1 or v2 version (same point keys,
same record), never a mix; sessions() and session() agree; search only returns
points that are visible. Two more kills land inside `index --rebuild`. At the
end one more run finishes the work and the index equals a clean index of the
final corpus.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from convo_tui.cli.main import main
from convo_tui.core.embed.dense import shared_dense
from convo_tui.core.index.points import session_points, stored_record
from convo_tui.core.index.publish import visible_filter
from convo_tui.core.library import SCHEMA_VERSION, Library
from convo_tui.core.serialize import session_to_record
from convo_tui.core.settings import DEFAULT_MODEL, Settings
from convo_tui.core.sources import parse_path
from convo_tui.core.store.base import Cond, Filter

from tests.paths import ROOT

WORKER = ROOT / "tests" / "helpers" / "index_worker.py"
KILLS = 6
REBUILD_KILLS = 2
SEED = 2026
WORDS = [
    "qdrant",
    "index",
    "vector",
    "search",
    "cursor",
    "claude",
    "session",
    "turn",
    "message",
    "tool",
    "embed",
    "sparse",
    "dense",
    "hybrid",
    "fusion",
    "rank",
    "query",
    "filter",
    "payload",
    "shard",
    "segment",
    "wal",
    "lock",
    "crash",
    "publish",
    "generation",
    "visible",
    "archive",
    "manifest",
]
V1_TIME, V2_TIME = 1_767_000_000, 1_767_100_000


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _transcript(rng: random.Random, turns: int) -> str:
    lines: list[str] = []
    for _ in range(turns):
        lines += ["user:", _sentence(rng, 10) + "?", "", "assistant:", _sentence(rng, 16) + ".", ""]
    return "\n".join(lines)


def build_versions() -> tuple[dict[str, str], dict[str, str]]:
    """{relative path: text} for v1 and v2; v2 holds every v1 file (no deletions,
    so the archive rule does not make the final index differ from a clean one)."""
    rng = random.Random(SEED)
    folder = "Users-alice-code-crash/agent-transcripts"
    v1 = {f"{folder}/s{i:02d}.txt": _transcript(rng, 3) for i in range(12)}
    v2 = dict(v1)
    for i, name in enumerate(sorted(v1)):
        if i % 3 == 0:
            v2[name] = v1[name] + "\n" + _transcript(rng, 1)  # one more turn
        elif i % 3 == 1:
            v2[name] = _transcript(rng, 3)  # same shape, other words
    for i in range(3):
        v2[f"{folder}/new{i}.txt"] = _transcript(rng, 2)
    return v1, v2


def write_version(root: Path, version: dict[str, str], v1: dict[str, str]) -> None:
    """Make the folder hold exactly `version`. Mtimes are fixed per content (a Cursor
    session's time comes from its file), so records of one version are comparable."""
    for path in [p for p in root.rglob("*.txt") if str(p.relative_to(root)) not in version]:
        path.unlink()
    for name, text in version.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        stamp = V1_TIME if v1.get(name) == text else V2_TIME
        os.utime(path, (stamp, stamp))


def expected_sessions(root: Path) -> dict[str, tuple[frozenset[str], dict]]:
    """session id -> (its point keys, its record), as the indexer would write them."""
    tokenizer = shared_dense(DEFAULT_MODEL).tokenizer
    out = {}
    for path in sorted(root.rglob("*.txt")):
        for session in parse_path(path):
            keys = frozenset(p.payload["key"] for p in session_points(session, 0, tokenizer))
            out[session.id] = (keys, session_to_record(session))
    return out


def start_worker(
    index_dir: Path, source: Path, *extra: str, pause_at: int | None = None, part_chars: int | None = None
) -> subprocess.Popen:
    """The indexer in its own process; with `pause_at`, it stops before that store write."""
    env = dict(os.environ)
    if pause_at:
        env["CONVO_TUI_TEST_PAUSE_AT"] = str(pause_at)
    if part_chars:
        env["CONVO_TUI_TEST_PART_CHARS"] = str(part_chars)
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), str(index_dir), "index", str(source), "8", *extra],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    assert line.strip() == "ready", f"worker did not start: {line!r} {proc.stderr.read() if proc.poll() is not None else ''}"
    return proc


def kill_when_paused(proc: subprocess.Popen) -> str:
    """SIGKILL the worker once it paused before a write; its last line ("paused", or "done ..." if it finished first)."""
    last = ""
    for line in proc.stdout:
        last = line.strip()
        if last == "paused":
            break
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    return last


def check_consistent(index_dir: Path, versions: list[dict[str, tuple[frozenset[str], dict]]]) -> set[str]:
    """The invariants after a kill; returns the ids of the visible sessions."""
    with Library.open(Settings(index_dir=index_dir)) as library:  # the next open works
        store = library.store
        generations: dict[tuple[str, int], list[dict]] = defaultdict(list)
        for point in store.scroll(visible_filter()):
            generations[(point.payload["session_id"], point.payload["generation"])].append(point.payload)
        for (session_id, generation), payloads in generations.items():
            keys = frozenset(p["key"] for p in payloads)
            records = [stored_record(p) for p in payloads if p["level"] == "session"]
            assert len(records) == 1, f"{session_id}@{generation}: {len(records)} session records"
            shapes = [v[session_id] for v in versions if session_id in v]
            assert (keys, records[0]) in shapes, f"{session_id}@{generation} is neither its old nor its new version"
        visible = {sid for sid, _ in generations}
        for summary in library.sessions():
            session = library.session(summary.id)
            assert summary.message_count == sum(1 for m in session.messages if m.role in ("user", "assistant"))
            assert summary.turn_count == len(session.turns)
        visible_turns = {(p["session_id"], p["turn_index"]) for ps in generations.values() for p in ps if p["level"] == "turn"}
        for mode in ("keyword", "hybrid"):
            for hit in library.search("qdrant crash publish", mode=mode, limit=20):
                assert hit.session_id in visible
                assert (hit.session_id, hit.turn_index) in visible_turns, (
                    f"{mode} hit on an invisible turn: {hit.session_id}#{hit.turn_index}"
                )
    return visible


def visible_state(index_dir: Path) -> dict[str, dict]:
    with Library.open(Settings(index_dir=index_dir)) as library:
        assert library.store.count(Filter(must=(Cond("visible", value=False),))) == 0
        # A payload's dense_ready is the flag phase 1 wrote (a vector from the cache: True;
        # one phase 2 gives it: False); whether the point is embedded is asked of the store.
        embedded = {p.payload["key"] for p in library.store.scroll(visible_filter().and_(Cond("dense_ready", value=True)))}
        return {
            p.payload["key"]: {
                **{k: v for k, v in p.payload.items() if k not in ("generation", "dense_ready")},
                "embedded": p.payload["key"] in embedded if "dense_ready" in p.payload else None,
            }
            for p in library.store.scroll(visible_filter())
        }


@pytest.mark.slow
def test_killed_indexer_never_leaves_a_half_session(tmp_path: Path):
    source, index_dir = tmp_path / "src", tmp_path / "index"
    v1, v2 = build_versions()
    write_version(source, v1, v1)
    expected_v1 = expected_sessions(source)
    write_version(source, v2, v1)
    expected_v2 = expected_sessions(source)
    versions = [expected_v1, expected_v2]
    assert any(expected_v1[s] != expected_v2[s] for s in expected_v1)

    # A first complete run of v1, which also tells how many store writes a run makes.
    write_version(source, v1, v1)
    proc = start_worker(index_dir, source)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and out.startswith("done 12 "), err
    assert check_consistent(index_dir, versions) == set(expected_v1)

    # Each kill lands just before a store write picked by the seeded generator
    # (the worker pauses there), so where the kills land does not depend on load.
    # Every run below rewrites most sessions (the corpus flips version), so a write
    # within the first quarter of a complete run's is always reached.
    writes = int(out.split()[-1])  # of the complete run
    rng = random.Random(SEED)
    interrupted = 0
    for kill in range(KILLS):
        write_version(source, v2 if kill % 2 == 0 else v1, v1)
        last = kill_when_paused(start_worker(index_dir, source, pause_at=rng.randint(1, writes // 4)))
        # A run either was killed mid-write or had nothing to write (a kill before
        # any change, then the corpus flipped back: every file is unchanged), but
        # for the v2-only files the flip removed, which come back from the archive
        # when a killed run had archived them (added, never updated).
        assert last == "paused" or (last.startswith("done ") and last.split()[2] == "0"), last
        interrupted += last == "paused"
        check_consistent(index_dir, versions)
    assert interrupted >= KILLS // 2, f"only {interrupted} of {KILLS} kills landed while the indexer was writing"

    # `index --rebuild` drops everything first: killed midway, sessions are absent or whole.
    for _ in range(REBUILD_KILLS):
        assert kill_when_paused(start_worker(index_dir, source, "rebuild", pause_at=rng.randint(2, writes - 1))) == "paused"
        check_consistent(index_dir, versions)

    # The next run completes the work: the same index as a clean build of the final corpus.
    write_version(source, v2, v1)
    proc = start_worker(index_dir, source)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0 and out.startswith("done"), err
    assert check_consistent(index_dir, versions) == set(expected_v2)
    clean = tmp_path / "clean-index"
    with Library.open(Settings(index_dir=clean)) as library:
        assert library.index([source]).added == 15
    assert visible_state(index_dir) == visible_state(clean)


def test_the_checker_sees_a_half_published_session(tmp_path: Path):
    """What the kill test guards against, made by hand: one turn of s00 moved to
    another generation, as if a new version were published point by point."""
    source, index_dir = tmp_path / "src", tmp_path / "index"
    v1, _v2 = build_versions()
    write_version(source, v1, v1)
    expected = expected_sessions(source)
    with Library.open(Settings(index_dir=index_dir)) as library:
        library.index([source])
    assert check_consistent(index_dir, [expected]) == set(expected)
    with Library.open(Settings(index_dir=index_dir)) as library:
        library.store.set_payload({"generation": 7}, Filter(must=(Cond("key", value="s00:turn-1"),)))
    with pytest.raises(AssertionError, match="s00@"):
        check_consistent(index_dir, [expected])


def test_an_older_index_schema_is_refused_with_one_line_and_rebuilt(tmp_path: Path, capsys):
    """Upgrades: an index written by an older convo-tui is never misread."""
    source = tmp_path / "src"
    v1, _v2 = build_versions()
    write_version(source, {k: v for k, v in sorted(v1.items())[:2]}, v1)
    index = ["--index-dir", str(tmp_path / "index")]
    assert main(["index", str(source), *index]) == 0
    meta_path = tmp_path / "index" / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    assert meta["schema"] == SCHEMA_VERSION
    meta_path.write_text(json.dumps({**meta, "schema": SCHEMA_VERSION - 1}), encoding="utf-8")
    capsys.readouterr()
    for argv in (["search", "qdrant", *index], ["sessions", *index], ["index", str(source), *index]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert f"written by an older convo-tui (schema {SCHEMA_VERSION - 1}, this version uses {SCHEMA_VERSION})" in err
        assert "convo-tui index --rebuild" in err
    assert main(["index", "--rebuild", str(source), *index]) == 0
    assert "sessions: 2 added" in capsys.readouterr().out
    assert json.loads(meta_path.read_text(encoding="utf-8"))["schema"] == SCHEMA_VERSION
    assert main(["sessions", *index]) == 0
    assert "s00" in capsys.readouterr().out


@pytest.mark.parametrize("damage", ["meta.json", "shard/edge_config.json", "segment.json"])
def test_a_damaged_index_says_so_in_one_line_and_rebuild_repairs_it(tmp_path: Path, capsys, damage: str):
    """A disk problem or a foreign write inside the index folder: never a traceback,
    the way out is named, and `index --rebuild` works from the transcripts."""
    source = tmp_path / "src"
    v1, _v2 = build_versions()
    write_version(source, {k: v for k, v in sorted(v1.items())[:2]}, v1)
    index_dir = tmp_path / "index"
    index = ["--index-dir", str(index_dir)]
    assert main(["index", str(source), *index]) == 0
    target = next(index_dir.rglob(Path(damage).name))
    target.write_text("{garbage", encoding="utf-8")
    capsys.readouterr()
    for argv in (["search", "qdrant", *index], ["sessions", *index], ["index", str(source), *index]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("convo-tui: ") and "Traceback" not in err
        assert f"{Path(damage).name} is unreadable (" in err, err
        assert err.endswith("run `convo-tui index --rebuild` (your transcripts are not affected)\n"), err
    assert main(["index", "--rebuild", str(source), *index]) == 0
    assert "sessions: 2 added" in capsys.readouterr().out
    assert main(["sessions", *index]) == 0
    assert "s00" in capsys.readouterr().out


# -- sessions published in parts -------------------------------------------------------

PART_CHARS = 600


def _claude_log(session_id: str, rng: random.Random, turns: int) -> str:
    lines = []
    for n in range(turns):
        stamp = f"2026-01-0{1 + n // 50}T{(n // 2) % 24:02d}:{n % 60:02d}:00.000Z"
        base = {"sessionId": session_id, "cwd": "/home/alice/code/crash", "timestamp": stamp, "isSidechain": False}
        lines.append({**base, "type": "user", "uuid": f"u{n}", "message": {"role": "user", "content": _sentence(rng, 12) + "?"}})
        answer = {"id": f"msg_{n}", "role": "assistant", "content": [{"type": "text", "text": _sentence(rng, 30) + "."}]}
        lines.append({**base, "type": "assistant", "uuid": f"a{n}", "message": answer})
    return "".join(json.dumps(line) + "\n" for line in lines)


def _parts_versions() -> tuple[dict[str, str], dict[str, str]]:
    """A long session new in v2, and a long one that grows from v1 to v2."""
    rng = random.Random(SEED + 1)
    folder = "-home-alice-code-crash"
    grows = "5b5b5b5b-3333-4333-8333-0000000000aa"
    fresh = "5b5b5b5b-3333-4333-8333-0000000000bb"
    v1 = {f"{folder}/{grows}.jsonl": _claude_log(grows, rng, 12)}
    v2 = {f"{folder}/{grows}.jsonl": v1[f"{folder}/{grows}.jsonl"] + _claude_log(grows, rng, 30)[200:].split("\n", 1)[1]}
    v2[f"{folder}/{fresh}.jsonl"] = _claude_log(fresh, rng, 30)
    return v1, v2


def _write_logs(root: Path, version: dict[str, str]) -> None:
    for path in [p for p in root.rglob("*.jsonl") if str(p.relative_to(root)) not in version]:
        path.unlink()
    for name, text in version.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def _whole(root: Path) -> dict[str, list[str]]:
    """session id -> the texts of its messages."""
    return {s.id: [m.text for m in s.messages] for path in root.rglob("*.jsonl") for s in parse_path(path)}


def check_parts(index_dir: Path, versions: list[dict[str, list[str]]]) -> None:
    """Each visible session is one of its versions whole, or (a session new to the
    index, killed while read) a prefix of one: turns 0..k, messages from the start."""
    with Library.open(Settings(index_dir=index_dir)) as library:
        store = library.store
        by_session: dict[str, set[int]] = defaultdict(set)
        turns: dict[tuple[str, int], list[int]] = defaultdict(list)
        for point in store.scroll(visible_filter(), fields=["session_id", "generation", "level", "turn_index"]):
            p = point.payload
            by_session[p["session_id"]].add(p["generation"])
            if p["level"] == "turn":
                turns[(p["session_id"], p["generation"])].append(p["turn_index"])
        for session_id, generations in by_session.items():
            # Two generations only between a flip and the delete of the older one (readers take the newer).
            assert len(generations) == 1 or session_id.endswith("aa"), generations
            for generation in generations:
                indexes = sorted(turns[(session_id, generation)])
                assert indexes == list(range(len(indexes))), f"{session_id}@{generation}: turns {indexes} are not a prefix"
            texts = [m.text for m in library.session(session_id).messages]
            candidates = [v[session_id] for v in versions if session_id in v]
            assert any(texts == whole[: len(texts)] for whole in candidates), f"{session_id}: neither a version nor its start"
            if len(generations) == 1 and not any(texts == whole for whole in candidates):
                assert session_id.endswith("bb"), "a session the index held showed part of its new version"


@pytest.mark.slow
def test_a_killed_indexer_leaves_sessions_in_parts_whole_or_a_prefix(tmp_path: Path, monkeypatch):
    source, index_dir = tmp_path / "src", tmp_path / "index"
    # Without the archive: each rebuild from v1 must drop v2's extra session, so the
    # run killed below adds it anew (with the archive the rebuild keeps it: test_archive).
    config = tmp_path / "config.toml"
    config.write_text("[archive]\nenabled = false\n", encoding="utf-8")
    monkeypatch.setenv("CONVO_TUI_CONFIG", str(config))
    v1, v2 = _parts_versions()
    _write_logs(source, v1)
    whole_v1 = _whole(source)
    proc = start_worker(index_dir, source, part_chars=PART_CHARS)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    _write_logs(source, v2)
    whole_v2 = _whole(source)
    proc = start_worker(index_dir, source, "rebuild", part_chars=PART_CHARS)
    out, err = proc.communicate(timeout=300)
    writes = int(out.split()[-1])
    rng = random.Random(SEED + 2)
    landed = 0
    for _ in range(4):
        _write_logs(source, v1)
        proc = start_worker(index_dir, source, "rebuild", part_chars=PART_CHARS)
        assert proc.communicate(timeout=300)[0].startswith("done")
        _write_logs(source, v2)
        last = kill_when_paused(start_worker(index_dir, source, pause_at=rng.randint(2, writes - 2), part_chars=PART_CHARS))
        landed += last == "paused"
        check_parts(index_dir, [whole_v1, whole_v2])
    assert landed >= 2
    proc = start_worker(index_dir, source, part_chars=PART_CHARS)
    assert proc.communicate(timeout=300)[0].startswith("done")
    with Library.open(Settings(index_dir=index_dir)) as library:
        assert {s.id: [m.text for m in library.session(s.id).messages] for s in library.sessions()} == whole_v2
