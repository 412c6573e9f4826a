"""Deterministic synthetic transcripts for the benchmark, written as real files.

The same seed and size always give byte-identical files (and mtimes), so runs
on different days and machines index the same corpus. Shape follows what the
assistants leave on disk: Cursor agent transcripts (plain text) and Claude Code
session logs (JSONL), short and long messages (long ones beyond the model's
256-token window), tool calls with large arguments, thinking, English and
Chinese, several projects, dates spread over two years.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench import vocab

DEFAULT_SEED = 20261122
# Dates run over the two years before this instant.
CORPUS_END = datetime(2026, 11, 1, tzinfo=UTC)
CORPUS_SPAN = timedelta(days=730)
# Tokens per chunk used for the points estimate (the index cuts 200-piece chunks that overlap by 32).
CHUNK_TOKENS = 180
CLAUDE_SHARE = 0.25
_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass
class FakeTool:
    name: str
    args: dict[str, str]


@dataclass
class FakeMessage:
    role: str  # "user" | "assistant"
    text: str
    thinking: str = ""
    tools: list[FakeTool] = field(default_factory=list)
    timestamp: datetime | None = None


@dataclass
class FakeSession:
    id: str
    project: str
    topic: str
    source: str  # "cursor" | "claude"
    messages: list[FakeMessage]

    @property
    def turns(self) -> int:
        """Turns per the pairing rules: a user message after AI text opens one."""
        count, seen_ai = 0, True
        for message in self.messages:
            if message.role == "user" and seen_ai:
                count, seen_ai = count + 1, False
            elif message.role == "assistant":
                if count == 0:
                    count = 1
                seen_ai = True
        return count

    def estimated_points(self) -> int:
        """messages (chunked past the window) + turns + 1 session point."""
        return sum(chunks(m.text) for m in self.messages) + self.turns + 1


@dataclass
class CorpusStats:
    root: Path
    sessions: int
    messages: int
    estimated_points: int
    bytes: int
    files: list[Path]


def estimate_tokens(text: str) -> int:
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil(len(_CJK.sub(" ", text).split()) * 1.3)


def chunks(text: str) -> int:
    return max(1, math.ceil(estimate_tokens(text) / CHUNK_TOKENS))


class _Writer:
    """Sentence and session factory around one seeded Random."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def _fill(self, template: str, topic: str, zh: bool) -> str:
        en, cn = vocab.TOPICS[topic]
        nouns = cn if zh else en
        # One noun in five comes from another topic: realistic cross-talk.
        other = vocab.TOPICS[self.rng.choice(list(vocab.TOPICS))][1 if zh else 0]
        return template.format(
            noun=self.rng.choice(nouns),
            noun2=self.rng.choice(other if self.rng.random() < 0.2 else nouns),
            verb=self.rng.choice(vocab.EN_VERBS),
        )

    def sentences(self, topic: str, zh: bool, count: int, question: bool = False) -> str:
        if question:
            pool = vocab.ZH_QUESTION if zh else vocab.EN_QUESTION
            first = self._fill(self.rng.choice(pool), topic, zh)
            rest = [self._fill(self.rng.choice(vocab.ZH_ANSWER if zh else vocab.EN_ANSWER), topic, zh) for _ in range(count - 1)]
            return ("" if zh else " ").join([*rest, first]) if rest else first
        pool = vocab.ZH_ANSWER if zh else vocab.EN_ANSWER
        return ("" if zh else " ").join(self._fill(self.rng.choice(pool), topic, zh) for _ in range(count))

    def ai_text(self, topic: str, zh: bool) -> str:
        roll = self.rng.random()
        if roll < 0.55:  # short
            return self.sentences(topic, zh, self.rng.randint(1, 3))
        if roll < 0.85:  # a few paragraphs, under the window
            paragraphs = [self.sentences(topic, zh, self.rng.randint(2, 4)) for _ in range(self.rng.randint(2, 3))]
            return "\n\n".join(paragraphs)
        # long: well past the 256-token window (2 to 5 chunks)
        paragraphs = [self.sentences(topic, zh, self.rng.randint(4, 7)) for _ in range(self.rng.randint(5, 12))]
        return "\n\n".join(paragraphs)

    def code(self, lines: int) -> str:
        return "\n".join(
            self.rng.choice(vocab.CODE_LINES).format(name=self.rng.choice(vocab.NAMES)).replace("{{", "{").replace("}}", "}")
            for _ in range(lines)
        )

    def tool(self, project: str, topic: str) -> FakeTool:
        name = self.rng.choice(vocab.TOOLS)
        path = f"/Users/dev/code/{project}/{topic}/{self.rng.choice(vocab.FILE_NAMES)}"
        if name == "Write":
            return FakeTool(name, {"path": path, "contents": self.code(self.rng.randint(20, 120))})
        if name == "StrReplace":
            return FakeTool(name, {"path": path, "old_string": self.code(3), "new_string": self.code(self.rng.randint(3, 30))})
        if name == "Shell":
            return FakeTool(name, {"command": f"pytest tests/test_{topic}.py -q", "description": "Run the tests"})
        if name in ("Grep", "codebase_search"):
            return FakeTool(name, {"query": self.rng.choice(vocab.TOPICS[topic][0]), "path": f"/Users/dev/code/{project}"})
        return FakeTool(name, {"path": path})

    def session(self, index: int) -> FakeSession:
        rng = self.rng
        project = rng.choice(vocab.PROJECTS)
        topic = rng.choice(list(vocab.TOPICS))
        zh = rng.random() < 0.3
        source = "claude" if rng.random() < CLAUDE_SHARE else "cursor"
        start = CORPUS_END - CORPUS_SPAN + timedelta(seconds=rng.randrange(int(CORPUS_SPAN.total_seconds())))
        clock = start
        messages: list[FakeMessage] = []
        for _ in range(rng.choice([1, 2, 2, 3, 3, 4, 5, 6, 8])):
            question = self.sentences(topic, zh, rng.randint(1, 3), question=True)
            if rng.random() < 0.15:  # pasted log or spec: a long user message
                question = question + "\n\n" + self.ai_text(topic, zh)
            messages.append(FakeMessage("user", question, timestamp=clock))
            for _ in range(rng.choice([1, 1, 2, 3])):
                clock += timedelta(seconds=rng.randint(5, 300))
                thinking = self._fill(rng.choice(vocab.THINKING), topic, False) if rng.random() < 0.4 else ""
                tools = [self.tool(project, topic) for _ in range(rng.choice([0, 0, 1, 1, 2]))]
                messages.append(FakeMessage("assistant", self.ai_text(topic, zh), thinking, tools, clock))
            clock += timedelta(minutes=rng.randint(1, 90))
        session_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        return FakeSession(session_id, project, topic, source, messages)


def render_cursor(session: FakeSession) -> str:
    """A Cursor agent transcript, as Cursor writes it."""
    out: list[str] = []
    for message in session.messages:
        if message.role == "user":
            out += ["user:", f"<user_query>\n{message.text}\n</user_query>", ""]
            continue
        out.append("assistant:")
        if message.thinking:
            out += [f"[Thinking] {message.thinking}", ""]
        paragraphs = message.text.split("\n\n")
        out.append(paragraphs[0])
        for tool in message.tools:
            out.append(f"[Tool call] {tool.name}")
            for key, value in tool.args.items():
                out.append(f"  {key}: {value}")
            out += ["", f"[Tool result] {tool.name}", f"{tool.name} finished without errors", ""]
        if not message.tools and len(paragraphs) > 1:
            out.append("")
        for paragraph in paragraphs[1:]:
            out += [paragraph, ""]
        if len(paragraphs) == 1:
            out.append("")
    return "\n".join(out) + "\n"


def render_claude(session: FakeSession) -> str:
    """A Claude Code session log: one JSON object a line, parent links, tool results."""
    lines: list[dict] = []
    parent: str | None = None
    cwd = f"/Users/dev/code/{session.project}"

    def emit(kind: str, content: object, stamp: datetime, n: int) -> None:
        nonlocal parent
        line_id = str(uuid.uuid5(uuid.UUID(session.id), f"{kind}-{n}"))
        lines.append(
            {
                "parentUuid": parent,
                "isSidechain": False,
                "type": kind,
                "uuid": line_id,
                "sessionId": session.id,
                "cwd": cwd,
                "timestamp": stamp.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
                "message": {"role": kind, "content": content},
            }
        )
        parent = line_id

    for n, message in enumerate(session.messages):
        stamp = message.timestamp or CORPUS_END
        if message.role == "user":
            emit("user", message.text, stamp, n)
            continue
        parts: list[dict] = []
        if message.thinking:
            parts.append({"type": "thinking", "thinking": message.thinking, "signature": "sig"})
        parts.append({"type": "text", "text": message.text})
        uses = [
            {"type": "tool_use", "id": f"toolu_{n}_{i}", "name": t.name, "input": t.args} for i, t in enumerate(message.tools)
        ]
        emit("assistant", parts + uses, stamp, n)
        if uses:
            results = [{"type": "tool_result", "tool_use_id": u["id"], "content": "ok"} for u in uses]
            emit("user", results, stamp + timedelta(seconds=1), n * 1000 + 1)
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def session_path(root: Path, session: FakeSession) -> Path:
    if session.source == "claude":
        return root / "claude" / "projects" / f"-Users-dev-code-{session.project}" / f"{session.id}.jsonl"
    return root / "cursor" / "projects" / f"Users-dev-code-{session.project}" / "agent-transcripts" / f"{session.id}.txt"


def sessions_for(target_points: int, seed: int = DEFAULT_SEED) -> list[FakeSession]:
    """Sessions in order until their estimated points reach `target_points`.

    A smaller target yields a prefix of a larger one with the same seed.
    """
    writer = _Writer(random.Random(seed))
    out: list[FakeSession] = []
    total = 0
    while total < target_points:
        session = writer.session(len(out))
        out.append(session)
        total += session.estimated_points()
    return out


def write_corpus(root: str | Path, target_points: int, seed: int = DEFAULT_SEED) -> CorpusStats:
    root = Path(root)
    sessions = sessions_for(target_points, seed)
    files: list[Path] = []
    size = 0
    for session in sessions:
        path = session_path(root, session)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = render_claude(session) if session.source == "claude" else render_cursor(session)
        data = text.encode("utf-8")
        path.write_bytes(data)
        size += len(data)
        last = max(m.timestamp for m in session.messages if m.timestamp)
        os.utime(path, (last.timestamp(), last.timestamp()))
        files.append(path)
    return CorpusStats(
        root=root,
        sessions=len(sessions),
        messages=sum(len(s.messages) for s in sessions),
        estimated_points=sum(s.estimated_points() for s in sessions),
        bytes=size,
        files=files,
    )


def touch_fraction(stats: CorpusStats, fraction: float, seed: int = DEFAULT_SEED) -> list[Path]:
    """Append one exchange to a deterministic `fraction` of the corpus files."""
    rng = random.Random(seed + 1)
    count = max(1, round(len(stats.files) * fraction))
    chosen = sorted(rng.sample(range(len(stats.files)), count))
    changed: list[Path] = []
    for i in chosen:
        path = stats.files[i]
        stat = path.stat()
        with open(path, "a", encoding="utf-8") as handle:
            if path.suffix == ".jsonl":
                stamp = datetime.fromtimestamp(stat.st_mtime + 60, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
                line = {
                    "parentUuid": None,
                    "isSidechain": False,
                    "type": "user",
                    "uuid": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                    "sessionId": path.stem,
                    "timestamp": stamp,
                    "message": {"role": "user", "content": "One more question about the benchmark."},
                }
                handle.write(json.dumps(line) + "\n")
            else:
                handle.write("user:\nOne more question about the benchmark.\n\nassistant:\nHere is the answer.\n")
        os.utime(path, (stat.st_mtime + 60, stat.st_mtime + 60))
        changed.append(path)
    return changed
