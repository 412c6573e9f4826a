"""What phase 1 makes of one file, before anything is written: its sessions'
parts read and turned into points with their keyword vectors.

This is the CPU-heavy half of phase 1 (parsing, cutting texts into chunks,
BM25) and it needs nothing of the index, so it can run in another process
(reader_process.py) while this one writes to the store. What depends on the
index (is the session new, is it claimed by another file, did the user delete
it) is decided by the writer (publish.py) as the parts arrive, in order.

Everything here crosses a process boundary: jobs, parts and failures are
plain picklable data, and a failure is reported as an item, not raised, so
the writer handles it the same way wherever the file was read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NoReturn

from convo_tui.core.errors import ConvoError, ParseError
from convo_tui.core.index.chunks import TokenizerLike
from convo_tui.core.index.points import (
    PendingPoint,
    clean_text,
    content_points,
    message_count,
    record_point,
    session_point,
)
from convo_tui.core.model import Session, pair_messages
from convo_tui.core.serialize import session_to_record
from convo_tui.core.sources import SessionPart, format_by_name, stream_path
from convo_tui.core.tally import TallyBuilder

# How the sessions read from a file are labelled as the file's (the archive's
# copy of a gone file names the original; a remote machine's sessions carry
# its name): applied to each part's session before its points are made.
Relabel = Callable[[Session], None]


def unchanged(_session: Session) -> None:
    """The label of a file read from where it is."""


@dataclass(frozen=True)
class ReadJob:
    """One file to read: `readable` is where its bytes are (the archive may have
    put a gone file back in a temporary folder), `path` the name it is known by."""

    path: str
    readable: str
    fmt: str
    relabel: Relabel = unchanged


@dataclass
class PartRead:
    """One part of a session, ready to be written.

    `points` are the part's points, its record included. A session read whole
    (`whole`) has its session point first among them; for a part of a longer
    session, `head` is the session point as read so far, which the writer
    places (a new session's is published with each part; a known one's only
    with the last). `failure` says why a session's points could not be made."""

    session_id: str
    session_path: str
    first_message: int
    last: bool
    whole: bool = False
    points: list[PendingPoint] = field(default_factory=list)
    head: PendingPoint | None = None
    failure: str = ""


@dataclass(frozen=True)
class FileEnd:
    """The file was read to its end; `unknown` counts what its reader did not know."""

    unknown: dict[str, int]


@dataclass(frozen=True)
class FileFailed:
    """Reading stopped: `parse` (the file is not a transcript its reader can
    read, `line` where), `fatal` (out of memory: the run stops), or `other`
    (the one line to report)."""

    kind: str
    reason: str
    line: int | None = None

    def raise_for(self, path: str) -> NoReturn:
        if self.kind == "parse":
            raise ParseError(path, self.reason, self.line)
        if self.kind == "fatal":
            raise MemoryError(self.reason)
        raise ReadFailed(self.reason)


class ReadFailed(ConvoError):
    """A file could not be read, for a reason already put in one line."""


ReadItem = PartRead | FileEnd | FileFailed


@dataclass
class ReadState:
    """One session while its parts are read: what its session point says so far."""

    turns: int = 0
    messages: int = 0
    parts: int = 0
    started_at: Any = None
    updated_at: Any = None
    tally: TallyBuilder = field(default_factory=TallyBuilder)  # the messages read so far, for the stats


@dataclass
class PartReader:
    """Reads files into parts with points (the same in this process or another)."""

    tokenizer: TokenizerLike | None
    sparse: Any  # core/embed/sparse.py SparseEmbedder (pickled by name)
    generation: int
    part_chars: int
    window: int | None = None
    questions: bool = False

    def read(self, job: ReadJob) -> Iterator[ReadItem]:
        """The file's parts, then FileEnd, or FileFailed where reading stopped."""
        fmt = format_by_name(job.fmt)
        if fmt is None:
            yield FileFailed("other", f"unknown format {job.fmt!r}")
            return
        unknown: Counter[str] = Counter()
        state = ReadState()
        try:
            for part in stream_path(job.readable, self.part_chars, fmt, unknown):
                if part.first_message == 0:
                    state = ReadState()
                yield self._part(job, part, state)
        except ParseError as exc:
            yield FileFailed("parse", exc.reason, exc.line)
            return
        except MemoryError as exc:
            yield FileFailed("fatal", f"out of memory reading {job.path}: {exc}")
            return
        except ConvoError as exc:
            yield FileFailed("other", str(exc))
            return
        except OSError as exc:
            yield FileFailed("other", f"cannot read: {exc.strerror or exc}")
            return
        except Exception as exc:  # a parser bug must not cost the other files
            yield FileFailed("other", f"could not be indexed ({type(exc).__name__}: {exc})")
            return
        yield FileEnd(dict(unknown))

    def _part(self, job: ReadJob, part: SessionPart, state: ReadState) -> PartRead:
        session = part.session
        job.relabel(session)
        clean_session(session)
        read = PartRead(session.id, session.path, part.first_message, part.last)
        try:
            read.points, read.head = part_points(
                session, part, state, self.generation, self.tokenizer, window=self.window, questions=self.questions
            )
            for point in read.points:  # a session point (`head`) has no keyword text
                keyword = point.keyword_text
                point.sparse = self.sparse.embed_document(keyword) if keyword else None
        except MemoryError:
            raise
        except Exception as exc:  # a keying bug costs this session, not the file's others
            read.points, read.head = [], None
            read.failure = f"session {session.id} could not be indexed ({type(exc).__name__}: {exc})"
        read.whole = part.last and state.parts == 0
        return read


def clean_session(session: Session) -> None:
    """Strings made from file names that are not valid UTF-8 -> storable text."""
    session.id = clean_text(session.id)
    session.title = clean_text(session.title)
    session.project = clean_text(session.project)
    session.path = clean_text(session.path)
    if session.cwd is not None:
        session.cwd = clean_text(session.cwd)


def part_points(
    session: Session,
    part: SessionPart,
    state: ReadState,
    generation: int,
    tokenizer: TokenizerLike | None,
    *,
    window: int | None = None,
    questions: bool = False,
) -> tuple[list[PendingPoint], PendingPoint | None]:
    """The points of one part (its turns and messages, and its record: in the
    session point for a session read whole, else a record point), and for a
    part of a longer session its session point as read so far."""
    turns = pair_messages(session.messages)
    points = content_points(
        session,
        generation,
        tokenizer,
        first_message=part.first_message,
        first_turn=state.turns,
        turns=turns,
        window=window,
        questions=questions,
    )
    state.turns += len(turns)
    state.messages += message_count(session.messages)
    state.started_at = state.started_at or session.started_at
    state.updated_at = max((t for t in (state.updated_at, session.updated_at) if t is not None), default=None)
    state.tally.add(session)
    if part.last and state.parts == 0:  # a session read whole: its record in its session point
        record = session_to_record(session)
        head = session_point(session, generation, state.turns, state.messages, record, tally=state.tally.packed())
        return [head, *points], None
    points.append(record_point(session, generation, state.parts))
    state.parts += 1
    session.started_at, session.updated_at = state.started_at, state.updated_at
    record = session_to_record(session, with_messages=False)
    tally = state.tally.packed()
    return points, session_point(session, generation, state.turns, state.messages, record, record_parts=state.parts, tally=tally)
