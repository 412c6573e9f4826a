"""A heavy user's history at 10k, 100k or 1M messages: Claude Code, Codex and Cursor files.

    python -m bench.scale_corpus OUT_DIR --messages 100000

Deterministic (seeded). The shapes are the real ones (core/sources/claude_code.py,
codex.py, cursor.py and their fixtures): Claude Code JSONL lines with their
metadata, one line per API content part, tool results in user lines; Codex
rollouts with `session_meta`, `turn_context`, `response_item` and `event_msg`
envelopes (AGENTS.md and environment context, reasoning, shell calls, patches,
token counts); Cursor agent transcripts as plain text.

Realistic spread, not a uniform one:
- session length is log-normal (median 14 messages, mean about 23, clipped at
  3,000), so most sessions are short and a few are very long;
- tool outputs are large and varied (file reads of up to 400 lines, test runs,
  grep hits, diffs), with a vocabulary of generated identifiers, paths and
  hashes following Zipf's law, as code does (BM25 sees a real vocabulary);
- thinking on most assistant messages, some long pasted prompts;
- dates spread over two years, each file's mtime its last message;
- from 100k messages on, a few very large sessions (tens of MB: thousands of
  messages with big tool outputs), all of them old, so a tool that reads in file
  order meets them before today's work.

Messages are counted as convo-tui parses them: what the user typed and each
assistant reply (a tool result is part of the call, not a message).

Needles, each a word found nowhere else: NEWEST in the last prompt of the
newest session, OLD in a prompt of a session about 20 months old, and
HUGE_TAIL near the end of the largest old session (found only once that
session is read to its end).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import sys
import uuid
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench import vocab

SEED = 20261125
END = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
SPAN = timedelta(days=730)
SHARES = (("claude", 0.6), ("codex", 0.25), ("cursor", 0.15))
MEDIAN_MESSAGES = 14
SIGMA = 1.0
MAX_MESSAGES = 3000
NEWEST = "quillfeatherstorm"
OLD = "marzipanlighthouse"
HUGE_TAIL = "obsidianhummingbird"
# Very large old sessions from this size on (messages, tool output lines per read).
HUGE_FROM = 100_000
HUGE_MESSAGES = 4000


@dataclass
class ScaleHistory:
    home: Path  # stands in for $HOME: .claude/projects, .codex/sessions, .cursor/projects
    sessions: int = 0
    messages: int = 0
    bytes: int = 0
    files: int = 0
    largest_bytes: int = 0
    by_source: dict[str, int] = field(default_factory=dict)
    needles: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> {word, session, source, path}

    @property
    def roots(self) -> list[Path]:
        return [self.home / ".claude" / "projects", self.home / ".codex" / "sessions", self.home / ".cursor" / "projects"]

    def as_dict(self) -> dict:
        out = asdict(self)
        out["home"] = str(self.home)
        return out


def _syllable_words(rng: random.Random, count: int) -> list[str]:
    parts = ["ka", "lo", "mi", "ren", "sto", "va", "qui", "del", "tor", "ba", "nex", "sa", "po", "lin", "gra", "fe", "zu", "hom"]
    words = set()
    while len(words) < count:
        words.add("".join(rng.choice(parts) for _ in range(rng.randint(2, 4))))
    return sorted(words)


class _Text:
    """Pools of sentences, code lines and identifiers drawn once, then sampled (fast)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        words = _syllable_words(rng, 60_000)
        rng.shuffle(words)
        # Zipf: identifier i is drawn with weight 1/(i+1); cumulative weights for bisect via choices().
        self.idents = words
        self.cumulative = list(itertools.accumulate(1.0 / (i + 1) for i in range(len(words))))
        self.sentences = {topic: self._sentences(topic, 400) for topic in vocab.TOPICS}
        self.zh_sentences = {topic: self._sentences(topic, 100, zh=True) for topic in vocab.TOPICS}
        self.questions = {topic: self._questions(topic, 200) for topic in vocab.TOPICS}
        self.thinking = {topic: self._thinking(topic, 200) for topic in vocab.TOPICS}
        self.code_lines = [self._code_line() for _ in range(20_000)]

    def ident(self, k: int = 1) -> list[str]:
        return self.rng.choices(self.idents, cum_weights=self.cumulative, k=k)

    def _fill(self, template: str, topic: str, zh: bool) -> str:
        en, cn = vocab.TOPICS[topic]
        nouns = cn if zh else en
        other = vocab.TOPICS[self.rng.choice(list(vocab.TOPICS))][1 if zh else 0]
        return template.format(
            noun=self.rng.choice(nouns),
            noun2=self.rng.choice(other if self.rng.random() < 0.2 else nouns),
            verb=self.rng.choice(vocab.EN_VERBS),
        )

    def _sentences(self, topic: str, count: int, zh: bool = False) -> list[str]:
        pool = vocab.ZH_ANSWER if zh else vocab.EN_ANSWER
        return [self._fill(self.rng.choice(pool), topic, zh) for _ in range(count)]

    def _questions(self, topic: str, count: int) -> list[str]:
        return [self._fill(self.rng.choice(vocab.EN_QUESTION), topic, False) for _ in range(count)]

    def _thinking(self, topic: str, count: int) -> list[str]:
        return [self._fill(self.rng.choice(vocab.THINKING), topic, False) for _ in range(count)]

    def _code_line(self) -> str:
        a, b, c = (w for w in self.rng.choices(self.idents[:5000], k=3))
        shapes = [
            f"def {a}({b}, {c}):",
            f"    {a} = {b}.{c}({self.rng.randint(0, 999)})",
            f"    return {a}({b}) if {c} else None",
            f"func {a}(ctx context.Context, {b} *{c.title()}) error {{",
            f"    if err := {a}.{b}(ctx); err != nil {{ return err }}",
            f"const {a} = async ({b}) => await {c}({b}.id);",
            f'    logger.info("{a} {b}", extra={{"{c}": len(rows)}})',
            f"    for {a} in {b}:",
            f"        {a} += {b}.{c} * {self.rng.randint(2, 64)}",
            f"import {{ {a}, {b} }} from './{c}';",
            f"# {a} keeps the {b} in sync with {c}",
            "}",
        ]
        return self.rng.choice(shapes)

    def prose(self, topic: str, sentences: int, zh: bool = False) -> str:
        pool = self.zh_sentences[topic] if zh else self.sentences[topic]
        picked = self.rng.choices(pool, k=sentences)
        if not zh and self.rng.random() < 0.5:  # identifiers in prose, as people name their code
            picked.append(f"See `{self.ident()[0]}` in `{self.ident()[0]}.py`.")
        return ("" if zh else " ").join(picked)

    def answer(self, topic: str, zh: bool) -> str:
        roll = self.rng.random()
        if roll < 0.55:
            return self.prose(topic, self.rng.randint(1, 3), zh)
        if roll < 0.9:
            return "\n\n".join(self.prose(topic, self.rng.randint(2, 4), zh) for _ in range(self.rng.randint(2, 3)))
        return "\n\n".join(self.prose(topic, self.rng.randint(4, 7), zh) for _ in range(self.rng.randint(5, 10)))

    def question(self, topic: str, zh: bool) -> str:
        if zh:
            return self.prose(topic, self.rng.randint(1, 2), zh=True)
        text = self.rng.choice(self.questions[topic])
        if self.rng.random() < 0.4:
            text = self.prose(topic, self.rng.randint(1, 2)) + " " + text
        if self.rng.random() < 0.08:  # a pasted stack trace or file
            text += "\n\n" + self.code(self.rng.randint(10, 80))
        return text

    def think(self, topic: str) -> str:
        return " ".join(self.rng.choices(self.thinking[topic], k=self.rng.randint(1, 4)))

    def code(self, lines: int) -> str:
        return "\n".join(self.rng.choices(self.code_lines, k=lines))

    def path(self, project: str) -> str:
        a, b = self.ident(2)
        ext = self.rng.choice([".py", ".go", ".ts", ".rs", ".tsx", ".yaml", ".md"])
        return f"/home/dev/code/{project}/{a}/{b}{ext}"

    def tool_output(self, kind: str, project: str, topic: str) -> str:
        rng = self.rng
        if kind == "read":
            lines = int(min(400, rng.lognormvariate(math.log(60), 0.9)))
            return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(self.code(max(3, lines)).split("\n"), 1))
        if kind == "test":
            count = rng.randint(10, 120)
            failed = rng.random() < 0.3
            rows = [
                f"tests/test_{self.ident()[0]}.py::test_{self.ident()[0]} {'FAILED' if failed and rng.random() < 0.1 else 'PASSED'}"
                for _ in range(count)
            ]
            tail = "E   AssertionError: expected 200, got 500" if failed else f"{count} passed in {rng.uniform(0.5, 40):.2f}s"
            return "\n".join(["============================= test session starts ==============================", *rows, tail])
        if kind == "grep":
            return "\n".join(f"{self.path(project)}:{rng.randint(1, 900)}:{self.code(1)}" for _ in range(rng.randint(2, 40)))
        if kind == "diff":
            return "\n".join(
                [
                    f"diff --git a/{self.path(project)} b/{self.path(project)}",
                    f"index {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644",
                ]
                + [("+" if rng.random() < 0.5 else "-") + line for line in self.code(rng.randint(4, 60)).split("\n")]
            )
        return f"The file {self.path(project)} has been updated."


@dataclass
class _Exchange:
    question: str
    steps: list[dict]  # each: {text, thinking, calls: [(kind, name, input, output)]}
    when: datetime


class _Sessions:
    """Draws sessions (as exchanges) and renders them in each tool's format."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.text = _Text(rng)

    def exchanges(
        self,
        messages: int,
        start: datetime,
        project: str,
        topic: str,
        zh: bool,
        big_outputs: bool = False,
        one_reply: bool = False,
    ) -> list[_Exchange]:
        """Exchanges holding `messages` messages; `one_reply`: Codex, whose reply to
        a prompt is one message however many model calls it took."""
        rng, text = self.rng, self.text
        out: list[_Exchange] = []
        clock = start
        left = messages
        while left > 0:
            steps = []
            replies = 1 if one_reply else min(max(1, left - 1), rng.choice([1, 1, 2, 2, 3, 4]))
            for _ in range(replies):
                calls = []
                for _ in range(rng.choice([0, 1, 1, 2, 3])):
                    kind = rng.choice(["read", "read", "test", "grep", "edit", "diff"])
                    if big_outputs and kind == "read":
                        output = "\n".join(text.tool_output("read", project, topic) for _ in range(rng.randint(3, 10)))
                    else:
                        output = text.tool_output(kind, project, topic)
                    calls.append((kind, text.path(project), output))
                steps.append(
                    {"text": text.answer(topic, zh), "thinking": text.think(topic) if rng.random() < 0.7 else "", "calls": calls}
                )
            out.append(_Exchange(text.question(topic, zh), steps, clock))
            clock += timedelta(seconds=rng.randint(20, 900))
            left -= 1 + replies
        return out

    # -- Claude Code ---------------------------------------------------------

    def claude(self, sid: str, project: str, exchanges: list[_Exchange]) -> tuple[bytes, datetime]:
        rng = self.rng
        cwd = f"/home/dev/code/{project}"
        lines: list[str] = []
        parent: str | None = None
        clock = exchanges[0].when

        def emit(kind: str, message: dict, **extra) -> None:
            nonlocal parent, clock
            clock += timedelta(seconds=rng.randint(1, 40))
            line_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            line = {
                "parentUuid": parent,
                "isSidechain": False,
                "userType": "external",
                "cwd": cwd,
                "sessionId": sid,
                "version": "2.0.14",
                "gitBranch": "main",
                "type": kind,
                "message": message,
                "uuid": line_id,
                "timestamp": clock.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
                **extra,
            }
            lines.append(json.dumps(line, ensure_ascii=False))
            parent = line_id

        for exchange in exchanges:
            clock = max(clock, exchange.when)
            emit("user", {"role": "user", "content": exchange.question})
            for step in exchange.steps:
                message_id = f"msg_{rng.getrandbits(96):024x}"
                usage = {
                    "input_tokens": rng.randint(3, 40),
                    "cache_read_input_tokens": rng.randint(1000, 90000),
                    "output_tokens": rng.randint(20, 3000),
                }
                base = {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5-20250929",
                    "stop_reason": None,
                    "usage": usage,
                }
                if step["thinking"]:
                    emit(
                        "assistant",
                        {**base, "content": [{"type": "thinking", "thinking": step["thinking"], "signature": "EqMBCkYIBxgCKkD"}]},
                        requestId=f"req_{message_id[4:]}",
                    )
                emit(
                    "assistant", {**base, "content": [{"type": "text", "text": step["text"]}]}, requestId=f"req_{message_id[4:]}"
                )
                for kind, path, output in step["calls"]:
                    tool_id = f"toolu_{rng.getrandbits(96):024x}"
                    name, args = _claude_call(kind, path, rng)
                    emit(
                        "assistant",
                        {**base, "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": args}]},
                        requestId=f"req_{message_id[4:]}",
                    )
                    emit(
                        "user",
                        {"role": "user", "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": output}]},
                        toolUseResult={"stdout": output[:200], "stderr": "", "interrupted": False},
                    )
        return ("\n".join(lines) + "\n").encode("utf-8"), clock

    # -- Codex ------------------------------------------------------------------

    def codex(self, sid: str, project: str, exchanges: list[_Exchange]) -> tuple[bytes, datetime]:
        rng = self.rng
        cwd = f"/home/dev/code/{project}"
        lines: list[str] = []
        clock = exchanges[0].when

        def emit(kind: str, payload: dict) -> None:
            nonlocal clock
            clock += timedelta(milliseconds=rng.randint(30, 20000))
            lines.append(
                json.dumps(
                    {"timestamp": clock.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z", "type": kind, "payload": payload},
                    ensure_ascii=False,
                )
            )

        emit(
            "session_meta",
            {
                "id": sid,
                "timestamp": clock.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
                "cwd": cwd,
                "originator": "codex_cli_rs",
                "cli_version": "0.46.0",
                "instructions": None,
                "source": "cli",
                "model_provider": "openai",
                "git": {"commit_hash": f"{rng.getrandbits(160):040x}", "branch": "main", "repository_url": None},
            },
        )
        emit(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": f"# AGENTS.md instructions for {cwd}\n\n<INSTRUCTIONS>\nRun the tests before you finish.\n</INSTRUCTIONS>",
                    }
                ],
            },
        )
        emit(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>zsh</shell>\n</environment_context>",
                    }
                ],
            },
        )
        total = 0
        for exchange in exchanges:
            clock = max(clock, exchange.when)
            emit(
                "turn_context",
                {
                    "cwd": cwd,
                    "approval_policy": "on-request",
                    "sandbox_policy": {"mode": "workspace-write", "network_access": False},
                    "model": "gpt-5-codex",
                    "effort": "medium",
                    "summary": "auto",
                },
            )
            emit(
                "response_item",
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": exchange.question}]},
            )
            emit("event_msg", {"type": "user_message", "message": exchange.question, "images": []})
            for step in exchange.steps:
                if step["thinking"]:
                    emit(
                        "response_item",
                        {
                            "type": "reasoning",
                            "summary": [{"type": "summary_text", "text": step["thinking"]}],
                            "content": None,
                            "encrypted_content": "gAAAAABo7kZ3x9Qm",
                        },
                    )
                    emit("event_msg", {"type": "agent_reasoning", "text": step["thinking"]})
                for kind, path, output in step["calls"]:
                    call_id = f"call_{rng.getrandbits(64):016x}"
                    if kind == "edit":
                        patch = (
                            f"*** Begin Patch\n*** Update File: {path}\n@@\n"
                            + "\n".join("+" + line for line in self.text.code(rng.randint(2, 20)).split("\n"))
                            + "\n*** End Patch\n"
                        )
                        emit(
                            "response_item",
                            {
                                "type": "custom_tool_call",
                                "status": "completed",
                                "call_id": call_id,
                                "name": "apply_patch",
                                "input": patch,
                            },
                        )
                        emit(
                            "event_msg",
                            {
                                "type": "patch_apply_end",
                                "call_id": call_id,
                                "stdout": f"Success. Updated the following files:\nM {path}\n",
                                "stderr": "",
                                "success": True,
                            },
                        )
                        emit(
                            "response_item",
                            {
                                "type": "custom_tool_call_output",
                                "call_id": call_id,
                                "output": json.dumps(
                                    {
                                        "output": f"Success. Updated the following files:\nM {path}\n",
                                        "metadata": {"exit_code": 0, "duration_seconds": 0.0},
                                    }
                                ),
                            },
                        )
                        continue
                    command = {
                        "read": f"sed -n '1,400p' {path}",
                        "test": "pytest -q",
                        "grep": f"rg -n {self.text.ident()[0]}",
                        "diff": "git diff",
                    }[kind]
                    emit(
                        "response_item",
                        {
                            "type": "function_call",
                            "name": "shell",
                            "arguments": json.dumps({"command": ["bash", "-lc", command], "workdir": cwd, "timeout_ms": 120000}),
                            "call_id": call_id,
                        },
                    )
                    emit(
                        "event_msg",
                        {
                            "type": "exec_command_end",
                            "call_id": call_id,
                            "stdout": output,
                            "stderr": "",
                            "aggregated_output": output,
                            "exit_code": 0,
                            "duration": {"secs": 0, "nanos": 41000000},
                        },
                    )
                    emit(
                        "response_item",
                        {
                            "type": "function_call_output",
                            "call_id": call_id,
                            "output": json.dumps({"output": output, "metadata": {"exit_code": 0, "duration_seconds": 0.04}}),
                        },
                    )
                emit(
                    "response_item",
                    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": step["text"]}]},
                )
                emit("event_msg", {"type": "agent_message", "message": step["text"]})
                used = rng.randint(2000, 40000)
                total += used
                emit(
                    "event_msg",
                    {
                        "type": "token_count",
                        "info": {
                            "total_token_usage": {
                                "input_tokens": total,
                                "cached_input_tokens": total // 2,
                                "output_tokens": used // 10,
                                "reasoning_output_tokens": used // 20,
                                "total_tokens": total + used // 10,
                            },
                            "last_token_usage": {
                                "input_tokens": used,
                                "cached_input_tokens": used // 2,
                                "output_tokens": used // 10,
                                "reasoning_output_tokens": used // 20,
                                "total_tokens": used + used // 10,
                            },
                        },
                        "rate_limits": None,
                    },
                )
        return ("\n".join(lines) + "\n").encode("utf-8"), clock

    # -- Cursor -------------------------------------------------------------------

    def cursor(self, sid: str, project: str, exchanges: list[_Exchange]) -> tuple[bytes, datetime]:
        out: list[str] = []
        clock = exchanges[-1].when
        for exchange in exchanges:
            out += ["user:", f"<user_query>\n{exchange.question}\n</user_query>", ""]
            for step in exchange.steps:
                out.append("assistant:")
                if step["thinking"]:
                    out.append(f"[Thinking] {step['thinking']}")
                paragraphs = step["text"].split("\n\n")
                out.append(paragraphs[0])
                for kind, path, _output in step["calls"]:
                    name = {"read": "Read", "test": "Shell", "grep": "Grep", "edit": "StrReplace", "diff": "Shell"}[kind]
                    out.append(f"[Tool call] {name}")
                    if kind == "edit":
                        out += [f"  path: {path}", f"  old_string: {self.text.code(1)}", f"  new_string: {self.text.code(1)}"]
                    elif name == "Shell":
                        out += ["  command: pytest -q", "  description: Run the tests"]
                    elif name == "Grep":
                        out += [f"  pattern: {self.text.ident()[0]}", f"  path: /home/dev/code/{project}"]
                    else:
                        out.append(f"  path: {path}")
                    out += ["", f"[Tool result] {name}", ""]
                for paragraph in paragraphs[1:]:
                    out += [paragraph, ""]
                out.append("")
            clock = exchange.when
        return ("\n".join(out) + "\n").encode("utf-8"), clock + timedelta(minutes=5)


def _claude_call(kind: str, path: str, rng: random.Random) -> tuple[str, dict]:
    if kind == "read":
        return "Read", {"file_path": path}
    if kind == "test":
        return "Bash", {"command": "pytest -x -q", "description": "Run the tests"}
    if kind == "grep":
        return "Grep", {
            "pattern": path.rsplit("/", 1)[-1].split(".")[0],
            "path": path.rsplit("/", 2)[0],
            "output_mode": "content",
        }
    if kind == "diff":
        return "Bash", {"command": "git diff", "description": "Show the changes"}
    return "Edit", {"file_path": path, "old_string": "pass", "new_string": "return None"}


def _plant(exchanges: list[_Exchange], word: str, last: bool) -> None:
    target = exchanges[-1] if last else exchanges[0]
    target.question = f"{target.question} Also check {word} before we ship."


def _plant_tail(exchanges: list[_Exchange], word: str) -> None:
    """In the last tool output of the session's last exchanges (read only at the file's end)."""
    for exchange in reversed(exchanges):
        for step in reversed(exchange.steps):
            if step["calls"]:
                kind, path, output = step["calls"][-1]
                step["calls"][-1] = (kind, path, f"{output}\n# {word} marks the end")
                return
    exchanges[-1].question += f" {word}"


def _claude_path(home: Path, project: str, sid: str) -> Path:
    return home / ".claude" / "projects" / f"-home-dev-code-{project}" / f"{sid}.jsonl"


def _codex_path(home: Path, sid: str, start: datetime) -> Path:
    day = home / ".codex" / "sessions" / start.strftime("%Y/%m/%d")
    return day / f"rollout-{start.strftime('%Y-%m-%dT%H-%M-%S')}-{sid}.jsonl"


def _cursor_path(home: Path, project: str, sid: str) -> Path:
    return home / ".cursor" / "projects" / f"home-dev-code-{project}" / "agent-transcripts" / f"{sid}.txt"


def session_lengths(rng: random.Random, total: int) -> list[int]:
    """Messages per session, log-normal, until `total` is reached (the last one trimmed)."""
    lengths: list[int] = []
    left = total
    while left > 0:
        n = round(rng.lognormvariate(math.log(MEDIAN_MESSAGES), SIGMA))
        n = max(2, min(MAX_MESSAGES, n, left if left >= 2 else 2))
        lengths.append(n)
        left -= n
    return lengths


def write_scale_history(home: str | Path, messages: int, seed: int = SEED, log=None) -> ScaleHistory:
    """Write a history of about `messages` messages under `home`; returns what was written."""
    rng = random.Random(seed)
    gen = _Sessions(rng)
    history = ScaleHistory(Path(home))
    huge = 0
    if messages >= HUGE_FROM:
        huge = 2 if messages < 1_000_000 else 4
    lengths = [HUGE_MESSAGES] * huge + session_lengths(rng, messages - huge * HUGE_MESSAGES)
    count = len(lengths)
    # Start times: uniform over two years; the huge ones are old (first year), the
    # newest session ends the history and the OLD needle sits about 20 months back.
    starts = sorted(END - SPAN + timedelta(seconds=rng.randrange(int(SPAN.total_seconds()) - 86_400)) for _ in range(count))
    huge_slots = set(range(huge))  # the earliest starts: the oldest sessions
    old_slot = min(range(huge, count), key=lambda i: abs((END - starts[i]).days - 600))
    newest_slot = count - 1
    if old_slot == newest_slot:
        raise ValueError("history too small")
    rest = iter(lengths[huge:])
    sizes = [HUGE_MESSAGES if i in huge_slots else next(rest) for i in range(count)]
    for i in range(count):
        source = "claude" if i in (newest_slot, old_slot) or i in huge_slots else _pick_source(rng)
        project = rng.choice(vocab.PROJECTS)
        topic = rng.choice(list(vocab.TOPICS))
        zh = rng.random() < 0.1
        exchanges = gen.exchanges(
            sizes[i], starts[i], project, topic, zh, big_outputs=i in huge_slots, one_reply=source == "codex"
        )
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        needle = None
        if i == newest_slot:
            _plant(exchanges, NEWEST, last=True)
            needle = NEWEST
        elif i == old_slot:
            _plant(exchanges, OLD, last=False)
            needle = OLD
        elif i == min(huge_slots, default=-1):
            _plant_tail(exchanges, HUGE_TAIL)
            needle = HUGE_TAIL
        if source == "claude":
            data, last = gen.claude(sid, project, exchanges)
            path = _claude_path(history.home, project, sid)
        elif source == "codex":
            data, last = gen.codex(sid, project, exchanges)
            path = _codex_path(history.home, sid, starts[i])
        else:
            data, last = gen.cursor(sid, project, exchanges)
            path = _cursor_path(history.home, project, sid)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.utime(path, (last.timestamp(), last.timestamp()))
        if needle:
            history.needles[needle] = {"session": sid, "source": source, "path": str(path)}
        history.sessions += 1
        history.messages += sum(1 + len(e.steps) for e in exchanges)
        history.bytes += len(data)
        history.files += 1
        history.largest_bytes = max(history.largest_bytes, len(data))
        history.by_source[source] = history.by_source.get(source, 0) + 1
        if log and (i + 1) % 2000 == 0:
            log(f"  {i + 1}/{count} sessions, {history.bytes / 1e6:.0f} MB")
    return history


def _pick_source(rng: random.Random) -> str:
    roll = rng.random()
    for name, share in SHARES:
        if roll < share:
            return name
        roll -= share
    return SHARES[-1][0]


def write_huge_session(path: Path, megabytes: int, seed: int = SEED) -> dict:
    """One Claude Code session of about `megabytes` MB (issue 24: 200 MB, one
    session); HUGE_TAIL near its end, NEWEST in its first prompt."""
    rng = random.Random(seed + 1)
    gen = _Sessions(rng)
    sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    path.parent.mkdir(parents=True, exist_ok=True)
    written = messages = lines = 0
    start = END - timedelta(days=3)
    with open(path, "wb") as handle:
        first = True
        while written < megabytes * 1_000_000:
            exchanges = gen.exchanges(200, start, "mlplatform", "perf", False, big_outputs=True)
            if first:
                _plant(exchanges, NEWEST, last=False)
                first = False
            if written + 6_000_000 >= megabytes * 1_000_000:
                _plant_tail(exchanges, HUGE_TAIL)
                megabytes = 0  # this is the last block
            data, last = gen.claude(sid, "mlplatform", exchanges)
            handle.write(data)
            written += len(data)
            lines += data.count(b"\n")
            messages += sum(1 + len(e.steps) for e in exchanges)
            start = last
    os.utime(path, (start.timestamp(), start.timestamp()))
    return {"path": str(path), "session": sid, "bytes": written, "lines": lines, "messages": messages}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale_corpus")
    parser.add_argument("home", type=Path)
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    history = write_scale_history(args.home, args.messages, args.seed, log=lambda m: print(m, file=sys.stderr))
    print(json.dumps(history.as_dict(), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
