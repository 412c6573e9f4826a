"""Every registered parser, fed broken and hostile input, fails only with ParseError.

Formats come from `core.sources.formats()` at run time, so a new format is
fuzzed as soon as it is registered. Each format needs one real-shaped sample:
ours under fixtures/reliability/samples/, or else the smallest fixture another
test ships that `detect()` assigns to it. Whatever a parser returns must be a
well-formed Session (tests/helpers/wellformed.py).

Bounded for CI: small samples, fixed example counts, derandomized hypothesis.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from convo_tui.core.errors import ParseError
from convo_tui.core.sources import ParsedFile, SourceFormat, detect, formats, parse_file, parse_path, surrogates
from helpers.wellformed import assert_well_formed
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.paths import FIXTURES, ROOT

SAMPLES = FIXTURES / "reliability" / "samples"
# One small real-shaped sample per format added since (kept apart: other tiers index SAMPLES whole).
FORMAT_SAMPLES = FIXTURES / "reliability" / "formats"
FOREIGN_SAMPLE_LIMIT = 4096  # bytes: other tests' fixtures small enough to fuzz cheaply

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)


class Sample:
    """One sample file and the path below a temp root that keeps its context
    (`agent-transcripts/x.txt`, `<thread>/thread.json`), so location-aware sniffing works."""

    def __init__(self, fmt: SourceFormat, source: Path, relative: Path, tree: Path | None = None):
        self.fmt = fmt
        self.source = source
        self.relative = relative
        self.data = source.read_bytes()
        # The sample's whole folder (siblings such as threads.json), copied once per root.
        self.tree = tree

    @property
    def id(self) -> str:
        return f"{self.fmt.name}:{self.relative.name}"

    def place(self, root: Path, data: bytes) -> Path:
        """Write `data` where the sample lives below `root`; return that path."""
        target = root / self.relative
        if self.tree is not None and not (root / self.tree.name).exists():
            shutil.copytree(self.tree, root / self.tree.name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return target


def _parses(path: Path) -> bool:
    try:
        return bool(parse_path(path))
    except ParseError:
        return False


def _own_samples(registered: dict[str, SourceFormat]) -> list[Sample]:
    found = []
    for folder in (SAMPLES, FORMAT_SAMPLES):
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            fmt = detect(path)
            if fmt is not None and fmt.name in registered and _parses(path):
                relative = path.relative_to(folder)
                found.append(Sample(fmt, path, relative, folder / relative.parts[0]))
    return found


def _foreign_sample(fmt: SourceFormat) -> Sample | None:
    """The smallest parseable fixture of another test that is in this format."""
    candidates = sorted(
        (
            p
            for p in FIXTURES.rglob("*")
            if p.is_file()
            and SAMPLES not in p.parents
            and FORMAT_SAMPLES not in p.parents
            and 0 < p.stat().st_size <= FOREIGN_SAMPLE_LIMIT
        ),
        key=lambda p: (p.stat().st_size, str(p)),
    )
    for path in candidates:
        found = detect(path)
        if found is not None and found.name == fmt.name and _parses(path) and _parses_alone(path):
            return Sample(fmt, path, Path(*path.parts[-3:]))
    return None


def _parses_alone(path: Path) -> bool:
    """Fuzzing places a foreign sample alone: one that needs its siblings (OpenCode's
    message and part records) is no sample."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        alone = Path(scratch, *path.parts[-3:])
        alone.parent.mkdir(parents=True)
        shutil.copyfile(path, alone)
        return _parses(alone)


def _samples() -> list[Sample]:
    registered = {fmt.name: fmt for fmt in formats()}
    samples = _own_samples(registered)
    covered = {s.fmt.name for s in samples}
    for name, fmt in registered.items():
        if name not in covered:
            foreign = _foreign_sample(fmt)
            if foreign is not None:
                samples.append(foreign)
    return samples


ALL_SAMPLES = _samples()
FORMATS = formats()
JSON_SAMPLES = [s for s in ALL_SAMPLES if s.relative.suffix in (".json", ".jsonl")]
TEXT_SAMPLES = [s for s in ALL_SAMPLES if s.relative.suffix in (".txt", ".md")]


def sample_for(fmt: SourceFormat) -> Sample:
    return next(s for s in ALL_SAMPLES if s.fmt.name == fmt.name)


def check_parse(fmt: SourceFormat, path: Path) -> None:
    """parse_path and the format's own parse: ParseError (one line) or well-formed sessions."""
    check_own_parse(fmt, path, check_detected_parse(path))


def check_detected_parse(path: Path) -> ParsedFile | None:
    """parse_path's way (detect, then parse): a ParseError (one line, then None) or well-formed sessions."""
    return _checked(parse_file, path)


def check_own_parse(fmt: SourceFormat, path: Path, detected: ParsedFile | None) -> None:
    """The format's own parse, unless detection already chose `fmt` and it parsed: the
    same call then, checked once. (When it failed, its ParseError may hide a slip of
    the reader, which the safety net in _parse turns into one: the reader runs alone.)"""
    if detected is None or detected.format is not fmt:
        _checked(fmt.parse, path)


def _checked(parse: Callable[[Path], Any], path: Path) -> Any:
    try:
        result = parse(path)
    except ParseError as exc:
        message = str(exc)
        assert exc.reason and "\n" not in message, f"bad ParseError: {message!r}"
        return None
    sessions = result.sessions if isinstance(result, ParsedFile) else result
    assert isinstance(sessions, list), f"{parse.__name__} returned {type(sessions).__name__}"
    for session in sessions:
        if not isinstance(result, ParsedFile):
            surrogates.repair(session)  # what parse_path and stream_path do to every reader's sessions
        assert_well_formed(session)
    ids = [s.id for s in sessions]
    assert len(ids) == len(set(ids)), f"duplicate session ids from one file: {ids}"
    return result


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path


def test_every_registered_format_has_a_sample():
    assert FORMATS, "no formats registered"
    missing = sorted({f.name for f in FORMATS} - {s.fmt.name for s in ALL_SAMPLES})
    assert missing == [], f"formats without a fuzz sample (add one under {SAMPLES}): {missing}"


@pytest.mark.parametrize("sample", ALL_SAMPLES, ids=lambda s: s.id)
def test_samples_parse_cleanly(sample: Sample, root: Path):
    path = sample.place(root, sample.data)
    sessions = parse_path(path)
    assert sessions and all(s.messages for s in sessions)
    for session in sessions:
        assert_well_formed(session, source=sample.fmt.name)


@pytest.mark.parametrize("sample", ALL_SAMPLES, ids=lambda s: s.id)
def test_truncated_around_every_structural_byte(sample: Sample, root: Path):
    for cut in _cuts(sample.data):
        check_parse(sample.fmt, sample.place(root, sample.data[:cut]))


SQLITE_HEADER_PAGE = 512  # the samples' page size: past the first page, SQLite reads whole pages
SQLITE_STRIDE = 7


TEXT_HEAD = 256  # bytes of a text sample cut at every byte: what sniffing reads first
WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ")
WORD_STRIDE = 8


def _cuts(data: bytes) -> list[int]:
    """Of a text sample: every byte of its head, then every byte before and after a byte
    that is not a plain letter, digit or space (quotes, braces, escapes, newlines, markers,
    every byte of a multi-byte character) and every 8th inside a run of plain ones, where
    a cut leaves the same shape whichever letter it falls after (a third fewer parses).
    Of a SQLite sample: every byte of its first page (the header and schema) and then every
    7th: a database cut inside a later page is refused by SQLite alike wherever in the
    page the cut falls."""
    if data.startswith(b"SQLite format 3\x00"):
        head = list(range(SQLITE_HEADER_PAGE + 1))
        return [*head, *range(SQLITE_HEADER_PAGE + 1, len(data) + 1, SQLITE_STRIDE), len(data)]
    cuts = {*range(min(len(data), TEXT_HEAD) + 1), *range(0, len(data) + 1, WORD_STRIDE), len(data)}
    for at, byte in enumerate(data):
        if byte not in WORD_BYTES:
            cuts.update((at, at + 1))
    return sorted(cuts)


# --- random and mutated bytes ---------------------------------------------------

ODD_BYTES = [
    b"\x00",
    b"\xff",
    b"\xfe\xff",
    b"\xc3",
    b"\xe2\x82",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xef\xbb\xbf",
    b"\r",
    b"\r\n",
    b"\n\n",
    b"\t",
    b"\x1b[31m",
    b"\xe2\x80\xa8",
]
MARKERS = [
    "user:",
    "assistant:",
    "[Tool call] ",
    "[Tool call] Read",
    "  path: ",
    "[Tool result]",
    "[Tool result] Read",
    "[Thinking] ",
    "<user_query>",
    "</user_query>",
    "_**User**_",
    "_**Assistant**_",
    "---",
    "```",
    "# ",
    "<!-- Generated by SpecStory -->",
    "{",
    "}",
    "[",
    "]",
    '"',
    "\\",
    "\\u0000",
    "\\ud800",
    "\\udfff",
    '"type":"user"',
    '"role":',
    '"content":',
    '"mapping":',
    '"messages":',
    "null",
    "-1e999",
    "1e308",
]
TEXT_MARKERS = MARKERS[:17]
PALETTE = [*ODD_BYTES, *(m.encode() for m in MARKERS), *(f"\n{m}\n".encode() for m in MARKERS)]


@st.composite
def mutated(draw: st.DrawFn, data: bytes) -> bytes:
    result = bytearray(data)
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["insert", "delete", "replace", "duplicate", "swap-lines"]))
        at = draw(st.integers(0, len(result)))
        if op == "insert":
            result[at:at] = draw(st.sampled_from(PALETTE) | st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del result[at : at + draw(st.integers(1, 40))]
        elif op == "replace" and at < len(result):
            result[at] = draw(st.integers(0, 255))
        elif op == "duplicate":
            end = min(len(result), at + draw(st.integers(1, 200)))
            result[at:at] = result[at:end]
        elif op == "swap-lines":
            lines = bytes(result).split(b"\n")
            if len(lines) > 1:
                i = draw(st.integers(0, len(lines) - 1))
                j = draw(st.integers(0, len(lines) - 1))
                lines[i], lines[j] = lines[j], lines[i]
                result = bytearray(b"\n".join(lines))
    return bytes(result)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_random_bytes(fmt: SourceFormat, root: Path):
    sample = sample_for(fmt)

    @FUZZ
    @given(st.binary(max_size=2048) | st.text(max_size=1024).map(lambda t: t.encode("utf-8", "surrogatepass")))
    def run(data: bytes) -> None:
        path = sample.place(root, data)
        detected = check_detected_parse(path)  # the same for every format: once
        for other in FORMATS:
            check_own_parse(other, path, detected)

    run()


@pytest.mark.parametrize("sample", ALL_SAMPLES, ids=lambda s: s.id)
def test_mutated_samples(sample: Sample, root: Path):
    @settings(FUZZ, max_examples=60)
    @given(st.data())
    def run(data: st.DataObject) -> None:
        check_parse(sample.fmt, sample.place(root, data.draw(mutated(sample.data))))

    run()


@pytest.mark.parametrize("sample", TEXT_SAMPLES, ids=lambda s: s.id)
def test_markers_in_odd_places(sample: Sample, root: Path):
    """Each marker alone, and on every line of the sample."""
    lines = sample.data.decode("utf-8").split("\n")
    for m, marker in enumerate(TEXT_MARKERS):
        check_parse(sample.fmt, sample.place(root, marker.encode()))
        for i, line in enumerate(lines):
            # Start, middle or end of the line, in rotation: every place is hit by some marker.
            variant = (marker + line, line[: len(line) // 2] + marker + line[len(line) // 2 :], line + marker)[(i + m) % 3]
            changed = [*lines[:i], variant, *lines[i + 1 :]]
            check_parse(sample.fmt, sample.place(root, "\n".join(changed).encode()))


# --- JSON shapes ----------------------------------------------------------------

REPLACEMENTS: list[Any] = [None, 0, -1, 1.5, 10**30, True, "", "x", "\u0000", [], [None], {}, {"a": {}}, [[["deep"]]]]


def _documents(sample: Sample) -> list[Any]:
    text = sample.data.decode("utf-8-sig")
    if sample.relative.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return [json.loads(text)]


def _serialise(sample: Sample, documents: list[Any]) -> bytes:
    if sample.relative.suffix == ".jsonl":
        return "\n".join(json.dumps(d, ensure_ascii=False) for d in documents).encode()
    return json.dumps(documents[0], ensure_ascii=False).encode()


def _paths(value: Any, prefix: tuple = ()) -> Iterator[tuple]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*prefix, key)
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*prefix, index)
            yield from _paths(item, (*prefix, index))


def _replaced(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: (_replaced(v, rest, new) if k == head else v) for k, v in value.items()}
    return [(_replaced(v, rest, new) if i == head else v) for i, v in enumerate(value)]


def _variants(sample: Sample, transform: Callable[[Any, tuple], list[Any]]) -> Iterator[bytes]:
    documents = _documents(sample)
    for d, document in enumerate(documents):
        for path in [(), *_paths(document)]:
            for new_document in transform(document, path):
                yield _serialise(sample, [*documents[:d], new_document, *documents[d + 1 :]])


@pytest.mark.parametrize("sample", JSON_SAMPLES, ids=lambda s: s.id)
def test_wrong_type_in_every_json_field(sample: Sample, root: Path):
    def wrong_types(document: Any, path: tuple) -> list[Any]:
        return [_replaced(document, path, new) for new in REPLACEMENTS]

    count = 0
    for data in _variants(sample, wrong_types):
        check_parse(sample.fmt, sample.place(root, data))
        count += 1
    assert count >= len(REPLACEMENTS) * 3  # the sample really has fields to replace


@pytest.mark.parametrize("sample", JSON_SAMPLES, ids=lambda s: s.id)
def test_deleted_json_fields(sample: Sample, root: Path):
    def without(document: Any, path: tuple) -> list[Any]:
        if not path:
            return []
        parent_path, key = path[:-1], path[-1]
        parent = document
        for step in parent_path:
            parent = parent[step]
        if isinstance(parent, dict):
            trimmed = {k: v for k, v in parent.items() if k != key}
        else:
            trimmed = [v for i, v in enumerate(parent) if i != key]
        return [_replaced(document, parent_path, trimmed)]

    for data in _variants(sample, without):
        check_parse(sample.fmt, sample.place(root, data))


def _nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


@pytest.mark.parametrize("sample", JSON_SAMPLES, ids=lambda s: s.id)
def test_deeply_nested_json(sample: Sample, root: Path):
    for depth in (200, 5000, 100_000):
        check_parse(sample.fmt, sample.place(root, ("[" * depth + "]" * depth).encode()))
        check_parse(sample.fmt, sample.place(root, _nested(depth).encode()))
        # A nested value inside a real-shaped document, in each top-level field.
        text = sample.data.decode("utf-8-sig")
        first = text.splitlines()[0] if sample.relative.suffix == ".jsonl" else text
        for key in re.findall(r'"(\w+)":', first)[:12]:
            mangled = first.replace(f'"{key}":', f'"{key}": {_nested(depth)}, "_{key}":', 1)
            rest = text[len(first) :] if sample.relative.suffix == ".jsonl" else ""
            check_parse(sample.fmt, sample.place(root, (mangled + rest).encode()))


# --- big and binary -------------------------------------------------------------

TEN_MB = 10 * 1024 * 1024


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_ten_megabyte_line(fmt: SourceFormat, root: Path):
    """One 10 MB line inside a real-shaped sample, once per format."""
    sample = sample_for(fmt)
    words = ("lorem ipsum dolor sit amet " * (TEN_MB // 27 + 1))[:TEN_MB]
    if sample.relative.suffix in (".json", ".jsonl"):
        text = sample.data.decode("utf-8-sig")
        longest = max(re.findall(r'"((?:[^"\\]|\\.){8,})"', text), key=len)
        data = text.replace(f'"{longest}"', json.dumps(words), 1).encode()
    else:
        lines = sample.data.split(b"\n")
        data = b"\n".join([*lines[:2], words.encode(), *lines[2:]])
    path = sample.place(root, data)
    check_parse(fmt, path)
    single = sample.place(root, words.encode())  # and a file that is nothing but that line
    check_parse(fmt, single)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_nul_and_invalid_utf8_past_the_sniffed_head(fmt: SourceFormat, root: Path):
    """Damage after the first 64 KB, where the cheap precheck does not look."""
    sample = sample_for(fmt)
    padding = b"\n" * 70_000 if sample.relative.suffix not in (".json", ".jsonl") else b" " * 70_000
    for damage in (b"\x00", b"\xff\xfe", b"\xc3", b"\xed\xa0\x80"):
        for data in (sample.data + padding + damage, sample.data[:20] + padding + damage + sample.data[20:]):
            check_parse(fmt, sample.place(root, data))


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_unreadable_and_odd_paths(fmt: SourceFormat, root: Path):
    sample = sample_for(fmt)
    missing = root / "missing" / sample.relative.name
    folder = root / "a-folder"
    folder.mkdir()
    (folder / "thread.json").mkdir()  # a folder where a file is expected
    for path in (missing, folder, folder / "thread.json"):
        check_parse(fmt, path)
    locked = sample.place(root, sample.data)
    locked.chmod(0o000)
    try:
        check_parse(fmt, locked)
    finally:
        locked.chmod(0o600)


# --- file names and folder layouts through discovery and indexing ----------------
#
# Any bytes a Linux file name may hold (non-UTF-8 included), nested folders,
# empty folders, links to files and folders, dangling links and link loops:
# discovery must end and offer each real file once, and indexing (with a cheap
# hashing embedder instead of the model, for speed) must index every good
# transcript it is offered and name every other file it skips.

CLAUDE_SAMPLE = FIXTURES / "claude_code" / "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b.jsonl"
CLAUDE_ID = "7f3c2a10-5b6e-4d2f-9a8b-1c2d3e4f5a6b"
LAYOUT = settings(FUZZ, max_examples=25)
_SESSION_NUMBERS = itertools.count()

_any_name = st.binary(min_size=1, max_size=20).filter(lambda b: b not in (b".", b"..") and b"/" not in b and b"\0" not in b)
_utf8_name = (
    st.text(st.characters(exclude_characters="/\0", exclude_categories=("Cs",)), min_size=1, max_size=12)
    .map(lambda t: t.encode("utf-8"))
    .filter(lambda b: b not in (b".", b"..") and len(b) < 200)
)
_KINDS = st.sampled_from(["good", "junk", "empty-dir", "link-file", "link-dir", "dangling", "loop"])


def _entries(names: st.SearchStrategy[bytes]) -> st.SearchStrategy[list[tuple[list[bytes], bytes, str]]]:
    # (folders above it, its name, what it is)
    return st.lists(st.tuples(st.lists(names, min_size=0, max_size=3), names, _KINDS), min_size=1, max_size=8)


def _build(root: bytes, entries: list[tuple[list[bytes], bytes, str]]) -> dict[bytes, str]:
    """Lay the entries out below `root`; return good file path -> its session id."""
    good: dict[bytes, str] = {}
    template = CLAUDE_SAMPLE.read_bytes()
    made: list[bytes] = []
    for number, (folders, name, kind) in enumerate(entries):
        parent = os.path.join(root, *folders) if folders else root
        try:
            os.makedirs(parent, exist_ok=True)
        except OSError:
            continue  # a file already holds that name
        target = os.path.join(parent, name + (b".jsonl" if kind in ("good", "junk") else b""))
        if os.path.lexists(target):
            continue
        try:
            if kind == "good":
                session = f"{next(_SESSION_NUMBERS):08d}-0000-4000-8000-{number:012d}"
                with open(target, "wb") as handle:
                    handle.write(template.replace(CLAUDE_ID.encode(), session.encode()))
                good[target] = session
            elif kind == "junk":
                with open(target, "wb") as handle:
                    handle.write(b"\xff\xfe not a transcript \x00")
            elif kind == "empty-dir":
                os.mkdir(target)
            elif kind == "link-file" and made:
                os.symlink(made[number % len(made)], target)
            elif kind == "link-dir":
                os.symlink(root, target)
            elif kind == "dangling":
                os.symlink(os.path.join(root, b"nowhere", name), target)
            elif kind == "loop":
                os.symlink(parent, target)
        except OSError:
            continue
        made.append(target)
    return good


def _reachable(root: bytes, path: bytes) -> bool:
    """Discovery's own rules: hidden names and tool folders are not walked into."""
    from convo_tui.core.index.discover import SKIP_DIRS

    parts = os.path.relpath(path, root).split(b"/")
    return not any(p.startswith(b".") or os.fsdecode(p) in SKIP_DIRS for p in parts)


def _discover(base: Path, entries: list[tuple[list[bytes], bytes, str]]) -> tuple[bytes, dict[bytes, str], list[Path]]:
    from convo_tui.core.index.discover import iter_source_files

    root = os.fsencode(base / "src")
    os.mkdir(root)
    good = _build(root, entries)
    offered = list(iter_source_files([Path(os.fsdecode(root))]))
    real = [os.path.realpath(p) for p in offered]
    assert len(real) == len(set(real)), "a file was offered twice"
    assert all(p.is_file() for p in offered)
    offered_real = set(map(os.fsencode, real))
    for path in good:
        if _reachable(root, path):
            assert os.path.realpath(path) in offered_real, f"good file not offered: {path!r}"
    return root, good, offered


@pytest.fixture(scope="module")
def layout_store(tmp_path_factory):
    """One index for all layout examples (session ids never repeat across them)."""
    import sys

    sys.path.insert(0, str(ROOT))
    from convo_tui.core.embed.sparse import SparseEmbedder
    from convo_tui.core.store.edge import EdgeStore

    from bench.cheap import CheapEmbedder

    folder = tmp_path_factory.mktemp("layout-index")
    store = EdgeStore(folder / "index")
    yield store, folder, CheapEmbedder(), SparseEmbedder()
    store.close()


def _index_layout(layout_store, base: Path, entries) -> None:
    from convo_tui.core.index.manifest import Manifest
    from convo_tui.core.index.publish import Indexer, visible_filter
    from convo_tui.core.store.base import Cond

    store, _folder, dense, sparse = layout_store
    _root, good, offered = _discover(base, entries)
    report = Indexer(store, Manifest(base), dense, sparse).run(offered)
    wanted = tuple(good.values())
    stored = set()
    if wanted:
        flt = visible_filter(Cond("level", value="session"), Cond("session_id", any=wanted))
        stored = {p.payload["session_id"] for p in store.scroll(flt, fields=["session_id"])}
    skipped = {os.fsencode(path) for path, _reason in report.skipped}
    good_real = {os.path.realpath(path): session for path, session in good.items()}
    for path in map(os.fsencode, offered):
        session = good_real.get(os.path.realpath(path))
        if session is not None:
            assert session in stored or path in skipped, f"good file neither indexed nor reported: {path!r}"
        else:
            assert path in skipped, f"not a transcript but not reported: {path!r}"
    for _path, reason in report.skipped:
        assert reason and "\n" not in reason


@LAYOUT
@given(entries=_entries(_any_name))
def test_discovery_takes_any_file_names_and_layouts(tmp_path_factory, entries):
    _discover(tmp_path_factory.mktemp("layout"), entries)


@LAYOUT
@given(entries=_entries(_utf8_name))
def test_indexing_takes_any_utf8_file_names_and_layouts(tmp_path_factory, layout_store, entries):
    _index_layout(layout_store, tmp_path_factory.mktemp("layout"), entries)


@settings(FUZZ, max_examples=10, report_multiple_bugs=False)
@given(entries=_entries(_any_name))
def test_indexing_takes_non_utf8_file_names(tmp_path_factory, layout_store, entries):
    _index_layout(layout_store, tmp_path_factory.mktemp("layout"), entries)
