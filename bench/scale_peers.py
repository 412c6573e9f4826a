"""Peers from PyPI on the same files, in the same run (issue 25; commands from
/work/notes/research/peers.md).

Each reads the Claude Code projects of the generated history (the format all
of them read) through a private $HOME: ccsearch (a text cache searched with
ripgrep), agent-chat-reader (SQLite FTS5 trigram) and agentsview (Go, SQLite
FTS5: `sync` builds its database; its search needs a daemon on port 8080,
not started on a shared machine). Installed with
`python3 -m venv bench/out/peers/venv && bench/out/peers/venv/bin/pip install
ccsearch==0.2.5 agent-chat-reader==0.1.7 agentsview==0.46.1`; a peer that is
not there is reported as skipped.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from bench.scale_corpus import NEWEST

PEERS_BIN = Path(os.environ.get("BENCH_PEERS_BIN", Path(__file__).resolve().parent / "out" / "peers" / "venv" / "bin"))
TIMEOUT = 1800.0


def timed(argv: list[str], env: dict[str, str], timeout: float = TIMEOUT) -> dict:
    """Wall seconds, peak RSS (MB, this process alone) and output of one run."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"seconds": round(time.perf_counter() - started, 2), "timeout": True, "out": ""}
    seconds = time.perf_counter() - started
    return {"seconds": round(seconds, 3), "rc": proc.returncode, "out": out}


def peak_of(argv: list[str], env: dict[str, str], timeout: float = TIMEOUT) -> dict:
    """Like timed, with the process' own peak RSS (wait4)."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    chunks: list[bytes] = []
    deadline = started + timeout
    os.set_blocking(proc.stdout.fileno(), False)
    while True:
        try:
            piece = proc.stdout.read()
        except BlockingIOError:
            piece = None
        if piece:
            chunks.append(piece)
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            rest = proc.stdout.read() or b""
            chunks.append(rest)
            proc.returncode = os.waitstatus_to_exitcode(status)
            return {
                "seconds": round(time.perf_counter() - started, 3),
                "rc": proc.returncode,
                "peak_mb": round(usage.ru_maxrss / 1024),
                "out": b"".join(chunks).decode("utf-8", "replace"),
            }
        if time.perf_counter() > deadline:
            proc.kill()
            os.wait4(proc.pid, 0)
            return {"seconds": round(time.perf_counter() - started, 2), "timeout": True, "out": ""}
        time.sleep(0.01)


def _home(workdir: Path, projects: Path) -> Path:
    home = workdir / "peer-home"
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    link = home / ".claude" / "projects"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(projects)
    return home


def run_peers(workdir: Path, projects: Path, needles: dict[str, str], rounds: int = 3) -> list[dict]:
    """needles: word -> the session id it must find. The first search of each
    peer builds its cache or index (its 'first answer from a fresh start')."""
    home = _home(workdir, projects)
    base = {**os.environ, "HOME": str(home), "NO_COLOR": "1"}
    results: list[dict] = []
    # The first answer is for the newest session's needle, as convo-tui's is (the
    # history lists its needles by name: at 100k the huge session's came first).
    newest = NEWEST if NEWEST in needles else next(iter(needles))
    others = [word for word in needles if word != newest]
    for name, argv_for, env in (
        ("ccsearch", lambda w: [str(PEERS_BIN / "ccsearch"), w], {**base, "CLAUDE_CONFIG_DIR": str(home / ".claude")}),
        (
            "agent-chat-reader",
            lambda w: [str(PEERS_BIN / "agent-chat-reader"), "--find", w, "--source", "claude", "--limit", "10"],
            {**base, "AGENT_CHAT_READER_CACHE_DIR": str(home / "acr")},
        ),
    ):
        if not (PEERS_BIN / name).exists():
            results.append({"tool": name, "skipped": f"not installed in {PEERS_BIN}"})
            continue
        for cache in (home / ".cache", home / "acr"):
            subprocess.run(["rm", "-rf", str(cache)], check=False)
        first = peak_of(argv_for(newest), env)
        entry: dict = {
            "tool": name,
            "first_answer_seconds": first["seconds"],
            "first_peak_mb": first.get("peak_mb"),
            "first_found": needles[newest] in first.get("out", ""),
            "timeout": first.get("timeout", False),
        }
        if not first.get("timeout"):
            times, found = [], {}
            for _ in range(rounds):
                for word in [newest, *others]:
                    run = peak_of(argv_for(word), env)
                    times.append(run["seconds"])
                    found[word] = needles[word] in run.get("out", "")
            ordered = sorted(times)
            entry["query_p50_seconds"] = ordered[len(ordered) // 2]
            entry["found"] = found
        results.append(entry)
    results.append(_agentsview(home, base))
    return results


def _agentsview(home: Path, base: dict[str, str]) -> dict:
    binary = PEERS_BIN / "agentsview"
    if not binary.exists():
        return {"tool": "agentsview", "skipped": f"not installed in {PEERS_BIN}"}
    subprocess.run(["rm", "-rf", str(home / "av")], check=False)
    env = {
        **base,
        "AGENTSVIEW_DATA_DIR": str(home / "av"),
        "CLAUDE_PROJECTS_DIR": str(home / ".claude" / "projects"),
        "AGENTSVIEW_DISABLE_UPDATE_CHECK": "1",
        "AGENTSVIEW_NO_DAEMON": "1",
    }
    run = peak_of([str(binary), "sync"], env)
    return {
        "tool": "agentsview",
        "sync_seconds": run["seconds"],
        "sync_peak_mb": run.get("peak_mb"),
        "timeout": run.get("timeout", False),
        "note": "sync only: its search needs a daemon on port 8080",
        "said": (run.get("out") or "").strip().splitlines()[-1:] or [""],
    }
