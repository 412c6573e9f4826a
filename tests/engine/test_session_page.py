"""The sessions list by pages (Engine.session_page): the same sessions in the same
order as the whole list, counts from the index, and a page that follows the index
(a delete, an index run) and the user's edits (a title, a star)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from convo_tui.core.library import Library, session_rows
from convo_tui.core.library.catalogue import Refresh
from convo_tui.core.library.session_rows import Row
from convo_tui.core.settings import DEFAULT_MODEL, Settings

from tests.conftest import build_relevance, built_once
from tests.helpers.index_copy import copy_index


@pytest.fixture
def library(tmp_path_factory, tmp_path):
    built = built_once(tmp_path_factory, "relevance-index", build_relevance)
    copy_index(built / "index", tmp_path / "index")
    with Library.open(
        Settings(index_dir=tmp_path / "index", sources=[built / "src"], discover_defaults=False, model=DEFAULT_MODEL)
    ) as lib:
        yield lib


def ids(page) -> list[str]:
    return [entry.summary.id for entry in page.entries if entry.summary]


def test_pages_cut_the_whole_list_in_its_order(library):
    def newest_first(s):  # ties in a fixed order: title, then id
        stamp = s.updated_at or s.started_at
        return (-(stamp.timestamp() if stamp else 0.0), s.title.casefold(), s.id)

    whole = sorted(library.sessions(), key=newest_first)
    first = library.session_page(offset=0, limit=2)
    rest = library.session_page(offset=2, limit=100)
    assert ids(first) + ids(rest) == [s.id for s in whole]
    assert first.total == first.matched == first.everything == len(whole) and first.starred == 0
    assert first.entries[0].summary == whole[0]  # the same summary, source check included


def test_around_a_session_reads_the_page_that_holds_it(library):
    whole = library.session_page(limit=1000, sort="project").entries
    for at, entry in enumerate(whole):
        if entry.summary is None:
            continue
        page = library.session_page(offset=0, limit=3, sort="project", around=entry.summary.id)
        assert page.offset == at // 3 * 3
        assert entry.summary.id in ids(page)
    # A session the list does not hold (deleted, filtered out): the page asked for.
    assert library.session_page(offset=3, limit=3, sort="project", around="no-such-session").offset == 3
    starred_only = library.session_page(offset=0, limit=3, starred_only=True, around=whole[-1].summary.id)
    assert starred_only.offset == 0


def test_grouped_by_project_has_a_header_with_its_count_before_its_sessions(library):
    page = library.session_page(limit=1000, sort="project")
    headers = [(e.header, e.count) for e in page.entries if e.header is not None]
    assert sorted(headers) == sorted(library.projects())
    assert page.total == page.matched + len(headers)
    current = None
    for entry in page.entries:
        if entry.header is not None:
            current = entry.header
        else:
            assert entry.summary.project == current


def test_titles_stars_filters_and_deletes_show_in_the_next_page(library):
    first = library.sessions()[0]
    library.rename_session(first.id, "Zzz renamed")
    library.star_session(first.id)
    by_title = library.session_page(limit=1000, sort="title")
    titles = [e.summary.title for e in by_title.entries]
    assert "Zzz renamed" in titles and titles == sorted(titles, key=str.casefold)
    starred = library.session_page(starred_only=True)
    assert ids(starred) == [first.id] and starred.starred == 1 and starred.matched == 1
    found = library.session_page(text="zzz renamed")
    assert ids(found)[0] == first.id
    library.delete_session(first.id)
    after = library.session_page(limit=1000)
    assert first.id not in ids(after) and after.everything == len(library.sessions())


def test_a_mistyped_project_name_still_finds_that_projects_sessions(library):
    """Title and project are scored apart: joined into one string, a long title
    weighed the project's near match down under the cutoff."""
    sessions = library.sessions()
    project = sessions[0].project
    members = {s.id for s in sessions if s.project == project}
    for number, sid in enumerate(sorted(members)):
        library.rename_session(sid, f"Session {number}: a long question about how the retry queue drains after a deploy")
    typo = project[:2] + project[3:]  # one letter left out
    found = library.session_page(text=typo, limit=1000)
    assert set(ids(found)[: len(members)]) == members, (project, typo)  # and first: the nearest match


def test_the_filter_finds_a_session_by_a_tag_the_user_gave_it(library):
    """`session tag` set words the F3 filter did not read ("0 of 442")."""
    target = library.sessions()[-1]
    assert target.id not in ids(library.session_page(text="zzqtag", limit=1000))
    library.tag_session(target.id, ["zzqtag"])
    try:
        assert ids(library.session_page(text="zzqtag", limit=1000)) == [target.id]
        assert ids(library.session_page(text="#zzqtag", limit=1000)) == [target.id]
    finally:
        library.tag_session(target.id, ["zzqtag"], remove=True)


def test_tag_colon_in_the_filter_keeps_exactly_the_sessions_with_that_tag(library):
    """`tag:ux-test` in F3 was fuzzy: 63 of 440 sessions (every title with "test")."""
    first, second = library.sessions()[0], library.sessions()[-1]
    library.tag_session(first.id, ["ux-test"])
    library.tag_session(second.id, ["Needs Review"])
    try:
        assert ids(library.session_page(text="tag:UX-test", limit=1000)) == [first.id]
        assert ids(library.session_page(text='tag:"needs review"', limit=1000)) == [second.id]
        assert ids(library.session_page(text="tag:#ux-test", limit=1000, sort="title")) == [first.id]
        assert ids(library.session_page(text="tag:test", limit=1000)) == []  # a tag, not part of one
        # As in a search: the tag, then words to look for among its sessions.
        assert ids(library.session_page(text=f"tag:ux-test {first.title}", limit=1000)) == [first.id]
        assert ids(library.session_page(text="tag:ux-test zzqqxxyy", limit=1000)) == []
        assert library.session_page(text="tag:test", limit=1000).everything > 2
    finally:
        library.tag_session(first.id, ["ux-test"], remove=True)
        library.tag_session(second.id, ["Needs Review"], remove=True)


# -- the rows' file (core/library/session_rows.py) -----------------------------------


def reopen(library, *, read_only=False):
    return Library.open(library.settings, read_only=read_only)


def test_a_new_start_reads_the_rows_file_not_every_session_point(library):
    whole = ids(library.session_page(limit=1000))
    library.close()
    with reopen(library) as again:
        assert ids(again.session_page(limit=1000)) == whole
        assert again.catalogue.last_refresh == Refresh(whole=False, read=0, saved=False)


def test_an_index_run_reads_only_the_sessions_it_published(library, tmp_path):
    library.session_page()
    source = next(Path(library.settings.sources[0]).rglob("*.txt"))
    copy = tmp_path / "more" / f"copy-of-{source.name}"
    copy.parent.mkdir()
    shutil.copy(source, copy)
    library.index([copy])
    assert library.catalogue.last_refresh == Refresh(whole=False, read=1, saved=True)
    listed = ids(library.session_page(limit=1000))
    assert len(listed) == len(library.sessions()) and set(listed) == {s.id for s in library.sessions()}


def test_rows_the_index_no_longer_holds_are_read_again_whole(library):
    expected = sorted(ids(library.session_page(limit=1000)))
    folder = library.settings.index_dir
    rows = session_rows.load(folder)
    assert rows is not None and sorted(rows) == expected
    library.close()
    stale = Row("gone-session", "a deleted session", "p", "claude", "/x.jsonl", 1, 1, 1.0, 1.0, generation=1)
    session_rows.save(folder, {**rows, stale.id: stale})  # as a delete in a process that kept no file would leave it
    with reopen(library) as again:
        assert sorted(ids(again.session_page(limit=1000))) == expected
        assert again.catalogue.last_refresh.whole and again.catalogue.last_refresh.saved
    assert sorted(session_rows.load(folder) or {}) == expected


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="page release is Linux-only")
def test_a_whole_read_of_the_rows_lets_go_of_the_pages_it_reads(library, monkeypatch):
    """Every session point sits on pages of its own: read whole after a first index
    run, they took a million-message run's RSS from 0.6 to 2.3 GB unless let go."""
    from convo_tui.core.library import catalogue

    monkeypatch.setattr(catalogue, "RELEASE_ROWS", 1)
    expected = sorted(ids(library.session_page(limit=1000)))
    (library.settings.index_dir / session_rows.FILE_NAME).unlink()
    library.close()
    with reopen(library) as again:
        release = again.store.release_pages
        released: list[int] = []

        def counted() -> None:
            released.append(1)
            release()

        again.store.release_pages = counted  # type: ignore[method-assign]
        assert sorted(ids(again.session_page(limit=1000))) == expected
        assert again.catalogue.last_refresh.whole
        assert len(expected) > 2 and len(released) >= len(expected), (len(released), len(expected))


def test_a_delete_drops_its_row_from_the_file_too(library):
    first = library.session_page().entries[0].summary.id
    library.delete_session(first)
    assert first not in (session_rows.load(library.settings.index_dir) or {"": None})
    assert first not in ids(library.session_page(limit=1000))
    assert library.catalogue.last_refresh.whole is False


def test_a_damaged_rows_file_is_read_as_none_and_a_read_only_open_writes_none(library):
    expected = sorted(ids(library.session_page(limit=1000)))
    library.close()
    path = library.settings.index_dir / session_rows.FILE_NAME
    path.write_bytes(b"\x78\x9cnot zlib at all")
    with reopen(library, read_only=True) as reader:
        assert sorted(ids(reader.session_page(limit=1000))) == expected
        assert reader.catalogue.last_refresh == Refresh(whole=True, read=len(expected), saved=False)
    assert path.read_bytes() == b"\x78\x9cnot zlib at all"


def test_readiness_is_kept_until_this_process_changes_the_index(library, tmp_path):
    before = library.readiness()
    assert library.readiness() is before  # nothing changed: not counted again
    source = next(Path(library.settings.sources[0]).rglob("*.txt"))
    copy = tmp_path / "more" / f"copy-of-{source.name}"
    copy.parent.mkdir()
    shutil.copy(source, copy)
    library.index([copy])
    after = library.readiness()
    assert after.sessions == before.sessions + 1 and after.texts_total > before.texts_total
    library.delete_session(library.session_page().entries[0].summary.id)
    assert library.readiness().sessions == before.sessions


def test_the_deep_file_check_runs_once_per_open_for_index_runs_and_readiness(library, monkeypatch):
    from convo_tui.core.index import health

    calls = []
    real = health.start_deep_check
    monkeypatch.setattr(health, "start_deep_check", lambda *a: calls.append(a) or real(*a))
    library.index([])
    library.readiness(checked=True)
    library.index([])
    assert len(calls) == 1
    library.close()
    with reopen(library, read_only=True) as again:
        again.readiness()  # the coverage a search shows: counts alone
        assert len(calls) == 1
        again.readiness(checked=True)
    assert len(calls) == 2  # a new open checks again
