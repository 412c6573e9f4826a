"""A generated Claude Code history, shaped like a real user's `~/.claude/projects`.

Deterministic (seeded): long sessions of many exchanges; thinking on most
assistant messages; tool calls with large inputs (files written, edits, shell
commands) and large outputs (test runs, file reads, grep results) in
tool_result lines, as Claude Code writes them. Four needles are planted, one
each in a prompt, a thinking block, a tool input and a tool output, so the
bench can time when each becomes findable; and the query needles of
bench/needles.py (ten exact, ten paraphrase), one per session, placed with a
random generator of their own so the rest of the history is the same with or
without them.
"""

from __future__ import annotations

import json
import os
import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench import vocab
from bench.corpus import CORPUS_END, CORPUS_SPAN, _Writer
from bench.needles import all_needles

SEED = 20261123
NEEDLES = {
    "prompt": "quillfeatherstorm",
    "thinking": "marzipanlighthouse",
    "tool input": "zephyrcobblestone",
    "tool output": "obsidianhummingbird",
}


@dataclass
class History:
    root: Path  # the `projects` folder
    files: list[Path] = field(default_factory=list)
    sessions: int = 0
    messages: int = 0
    bytes: int = 0
    needle_sessions: dict[str, str] = field(default_factory=dict)  # part -> session id
    # bench/needles.py name ("exact-3", "paraphrase-7") -> session id
    query_needle_sessions: dict[str, str] = field(default_factory=dict)


def _test_output(rng: random.Random, topic: str, fail: bool) -> str:
    lines = ["============================= test session starts ==============================", "collected 48 items", ""]
    for i in range(rng.randint(20, 120)):
        status = "PASSED" if not fail or rng.random() > 0.1 else "FAILED"
        lines.append(f"tests/test_{topic}.py::test_case_{i} {status} [{min(100, i * 2)}%]")
    if fail:
        lines += [
            "",
            "=================================== FAILURES ===================================",
            "E   AssertionError: expected 200, got 500",
        ]
    return "\n".join(lines)


class _HistoryWriter(_Writer):
    def tool_call(self, project: str, topic: str) -> tuple[str, dict, str]:
        """(name, input, output) with Claude Code's tool names and sizes."""
        rng = self.rng
        path = f"/home/dev/code/{project}/{topic}/{rng.choice(vocab.FILE_NAMES)}"
        kind = rng.choice(["Read", "Read", "Bash", "Bash", "Edit", "Write", "Grep"])
        if kind == "Read":
            return kind, {"file_path": path}, self.code(rng.randint(40, 400))
        if kind == "Bash":
            command = rng.choice(
                [f"pytest tests/test_{topic}.py -x -q", f"git diff --stat HEAD~{rng.randint(1, 9)}", "npm run build"]
            )
            return kind, {"command": command, "description": "Run it"}, _test_output(rng, topic, rng.random() < 0.3)
        if kind == "Edit":
            return (
                kind,
                {"file_path": path, "old_string": self.code(rng.randint(3, 20)), "new_string": self.code(rng.randint(3, 40))},
                (f"The file {path} has been updated."),
            )
        if kind == "Write":
            return kind, {"file_path": path, "content": self.code(rng.randint(40, 250))}, f"File created successfully at: {path}"
        query = rng.choice(vocab.TOPICS[topic][0])
        hits = "\n".join(f"{path}:{rng.randint(1, 900)}: {self.code(1)}" for _ in range(rng.randint(5, 60)))
        return kind, {"pattern": query, "path": f"/home/dev/code/{project}"}, hits

    def lines(
        self, session_id: str, plant: dict[str, str], extra: tuple[str, str, str] | None = None
    ) -> tuple[list[dict], int, datetime]:
        """`extra`: a query needle (part, text, topic) for this session (bench/needles.py)."""
        rng = self.rng
        project = rng.choice(vocab.PROJECTS)
        topic = rng.choice(list(vocab.TOPICS))
        if extra is not None:
            topic = extra[2]  # same number of draws from rng: the rest of the history is unchanged
        clock = CORPUS_END - CORPUS_SPAN + timedelta(seconds=rng.randrange(int(CORPUS_SPAN.total_seconds())))
        cwd = f"/home/dev/code/{project}"
        out: list[dict] = []
        parent: str | None = None
        messages = 0

        def emit(kind: str, message: dict) -> None:
            nonlocal parent, clock
            clock += timedelta(seconds=rng.randint(2, 90))
            line_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            out.append(
                {
                    "parentUuid": parent,
                    "isSidechain": False,
                    "userType": "external",
                    "cwd": cwd,
                    "sessionId": session_id,
                    "version": "2.0.14",
                    "gitBranch": "main",
                    "type": kind,
                    "uuid": line_id,
                    "timestamp": clock.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
                    "message": message,
                }
            )
            parent = line_id

        for exchange in range(rng.choice([3, 4, 5, 6, 8, 10, 12])):
            question = self.sentences(topic, False, rng.randint(1, 3), question=True)
            if exchange == 0 and "prompt" in plant:
                question += f" Also check {plant['prompt']}."
            if exchange == 0 and extra is not None and extra[0] == "prompt":
                question = f"{extra[1]} {question}"
            if rng.random() < 0.1:
                question += "\n\n" + self.code(rng.randint(10, 80))  # a pasted stack trace or file
            emit("user", {"role": "user", "content": question})
            messages += 1
            for step in range(rng.choice([1, 2, 2, 3])):
                content: list[dict] = []
                plant_thinking = exchange == 0 and step == 0 and "thinking" in plant
                if rng.random() < 0.7 or plant_thinking:
                    thinking = self._fill(rng.choice(vocab.THINKING), topic, False)
                    if plant_thinking:
                        thinking += f" The {plant['thinking']} path looks suspicious."
                    if exchange == 0 and step == 0 and extra is not None and extra[0] == "thinking":
                        thinking += " " + extra[1]
                    content.append({"type": "thinking", "thinking": thinking, "signature": "c2ln"})
                elif exchange == 0 and step == 0 and extra is not None and extra[0] == "thinking":
                    # no thinking drawn here: the needle gets a block of its own (no draw from rng)
                    content.append({"type": "thinking", "thinking": extra[1], "signature": "c2ln"})
                text = self.ai_text(topic, False)
                if exchange == 0 and step == 0 and extra is not None and extra[0] == "ai":
                    text = f"{text} {extra[1]}"
                content.append({"type": "text", "text": text})
                calls = [self.tool_call(project, topic) for _ in range(rng.choice([0, 1, 1, 2, 3]))]
                if exchange == 0 and step == 0 and extra is not None and extra[0] in ("tool input", "tool output"):
                    if extra[0] == "tool input":
                        calls.append(("Bash", {"command": extra[1], "description": "Run it"}, "(no output)"))
                    else:
                        calls.append(("Bash", {"command": f"pytest -x -q tests/ 2>&1 | tail -5 # {topic}"}, extra[1]))
                if exchange == 0 and step == 0 and ("tool input" in plant or "tool output" in plant):
                    calls.append(
                        (
                            "Bash",
                            {"command": f"grep -rn {plant.get('tool input', 'TODO')} src/"},
                            f"src/app.py:12: {plant.get('tool output', 'ok')}",
                        )
                    )
                uses = [
                    {"type": "tool_use", "id": f"toolu_{uuid.UUID(int=rng.getrandbits(128)).hex[:24]}", "name": n, "input": a}
                    for n, a, _ in calls[: len(calls) - (1 if self._extra_call(exchange, step, extra) else 0)]
                ]
                if self._extra_call(exchange, step, extra):  # its id from the session, not from rng
                    name, args, _ = calls[-1]
                    extra_id = uuid.uuid5(uuid.NAMESPACE_URL, f"{session_id}-needle").hex[:24]
                    uses.append({"type": "tool_use", "id": f"toolu_{extra_id}", "name": name, "input": args})
                message_id = f"msg_{uuid.UUID(int=rng.getrandbits(128)).hex[:24]}"
                emit(
                    "assistant",
                    {
                        "id": message_id,
                        "type": "message",
                        "role": "assistant",
                        "model": "claude-sonnet-4-5-20250929",
                        "content": content + uses,
                    },
                )
                messages += 1
                if uses:
                    results = [
                        {"type": "tool_result", "tool_use_id": u["id"], "content": result}
                        for u, (_, _, result) in zip(uses, calls, strict=True)
                    ]
                    emit("user", {"role": "user", "content": results})
        return out, messages, clock

    @staticmethod
    def _extra_call(exchange: int, step: int, extra: tuple[str, str, str] | None) -> bool:
        return exchange == 0 and step == 0 and extra is not None and extra[0] in ("tool input", "tool output")


def write_history(root: str | Path, sessions: int = 300, seed: int = SEED) -> History:
    """`sessions` Claude Code logs under root/projects/<slug>/<uuid>.jsonl."""
    rng = random.Random(seed)
    writer = _HistoryWriter(rng)
    history = History(Path(root) / "projects")
    planted = {part: rng.randrange(sessions) for part in NEEDLES}
    # Query needles: their own generator, distinct sessions, none with a word needle.
    taken = set(planted.values())
    free = [i for i in range(sessions) if i not in taken]
    chosen = random.Random(seed + 26).sample(free, min(len(free), len(all_needles())))
    extras = {index: needle for index, needle in zip(chosen, all_needles(), strict=False)}
    for index in range(sessions):
        session_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        plant = {part: needle for part, needle in NEEDLES.items() if planted[part] == index}
        for part in plant:
            history.needle_sessions[part] = session_id
        extra = extras.get(index)
        if extra is not None:
            history.query_needle_sessions[extra[0]] = session_id
        lines, messages, last = writer.lines(session_id, plant, (extra[1], extra[2], extra[4]) if extra else None)
        project = lines[0]["cwd"].replace("/", "-")
        path = history.root / project / f"{session_id}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8")
        path.write_bytes(data)
        os.utime(path, (last.timestamp(), last.timestamp()))
        history.files.append(path)
        history.sessions += 1
        history.messages += messages
        history.bytes += len(data)
    return history


def append_exchange(path: Path, number: int) -> None:
    """One more user question and assistant answer at the end of a session log."""
    lines = path.read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])
    stamp = datetime.fromisoformat(last["timestamp"].replace("Z", "+00:00")) + timedelta(minutes=5)
    base = {k: last[k] for k in ("isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch")}
    user_id, ai_id = (
        str(uuid.uuid5(uuid.NAMESPACE_URL, f"{path}-{number}-u")),
        str(uuid.uuid5(uuid.NAMESPACE_URL, f"{path}-{number}-a")),
    )
    new = [
        {
            **base,
            "parentUuid": last["uuid"],
            "type": "user",
            "uuid": user_id,
            "timestamp": stamp.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "message": {"role": "user", "content": f"Follow-up {number}: does the retry logic still hold after the migration?"},
        },
        {
            **base,
            "parentUuid": user_id,
            "type": "assistant",
            "uuid": ai_id,
            "timestamp": (stamp + timedelta(seconds=30)).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "message": {
                "id": f"msg_follow_{number}",
                "role": "assistant",
                "model": "claude-sonnet-4-5-20250929",
                "content": [
                    {"type": "text", "text": f"Yes: the retry wraps the new call, follow-up {number} confirmed by the tests."}
                ],
            },
        },
    ]
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(line) + "\n" for line in new))
    later = stamp.timestamp() + 60
    os.utime(path, (later, later))


def as_dict(history: History) -> dict:
    return {
        "sessions": history.sessions,
        "messages": history.messages,
        "megabytes": round(history.bytes / 1e6, 1),
        "written": datetime.now(UTC).isoformat(timespec="seconds"),
    }
