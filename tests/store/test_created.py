"""A store file that a failed run created and never wrote a judged edit into is removed (with its
-wal and -shm); one that existed before, one holding rows and one another handle holds open are
never removed. Files that are no SQLite database are named for what they are."""

from __future__ import annotations

import pytest
from helpers import RecordingJudge, dump, fill_store, make_ctx

from semcer.errors import StoreError
from semcer.store.cached import judge_cached
from semcer.store.packing import unpack_pair
from semcer.store.sqlite import JudgedEditStore


def _files(path):
    return sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name))


class Boom(Exception):
    pass


def test_a_store_created_by_a_failed_run_and_never_written_is_removed(tmp_path):
    path = tmp_path / "new.sqlite"
    with pytest.raises(Boom), JudgedEditStore(path) as store:
        assert store.created and _files(path) == ["new.sqlite", "new.sqlite-shm", "new.sqlite-wal"]
        assert store.get_many([JudgedEditStore.key("j", make_ctx(0))]) == {}
        raise Boom
    assert _files(path) == []


def test_a_store_created_by_a_run_that_succeeds_is_kept(tmp_path):
    path = tmp_path / "new.sqlite"
    with JudgedEditStore(path) as store:
        assert store.created
    assert _files(path) == ["new.sqlite"]


def test_a_store_that_existed_before_is_never_removed(tmp_path):
    path = tmp_path / "old.sqlite"
    JudgedEditStore(path).close()  # empty, but not made by the failing run
    with pytest.raises(Boom), JudgedEditStore(path) as store:
        assert not store.created
        raise Boom
    assert _files(path) == ["old.sqlite"]
    filled = fill_store(tmp_path / "filled.sqlite")
    before = dump(filled)
    with pytest.raises(Boom), JudgedEditStore(filled):
        raise Boom
    assert dump(filled) == before


def test_an_empty_file_made_a_store_is_not_removed(tmp_path):
    path = tmp_path / "made-by-mktemp.sqlite"
    path.touch()
    with pytest.raises(Boom), JudgedEditStore(path) as store:
        assert not store.created
        raise Boom
    assert path.exists()


def test_a_created_store_that_holds_judged_edits_is_kept(tmp_path):
    path = tmp_path / "new.sqlite"
    with pytest.raises(Boom), JudgedEditStore(path) as store:
        judge_cached(RecordingJudge(), [make_ctx(i) for i in range(3)], store)
        raise Boom
    assert len(dump(path)) == 3


def test_a_created_store_another_handle_holds_open_is_kept(tmp_path):
    path = tmp_path / "new.sqlite"
    with pytest.raises(Boom), JudgedEditStore(path):
        other = JudgedEditStore(path)  # e.g. a second run started on the same new store
        raise Boom
    try:
        assert path.exists()
        judge_cached(RecordingJudge(), [make_ctx(0)], other)
    finally:
        other.close()
    assert len(dump(path)) == 1


@pytest.mark.parametrize("readonly, create", [(True, True), (False, False)])
def test_an_empty_file_is_not_taken_for_a_store(tmp_path, readonly, create):
    path = tmp_path / "empty.jsonl"
    path.touch()
    with pytest.raises(StoreError, match=r"^.*empty\.jsonl: an empty file, not a judged-edit store$"):
        JudgedEditStore(path, readonly=readonly, create=create)
    assert path.stat().st_size == 0


@pytest.mark.parametrize("readonly", [False, True])
def test_a_file_that_is_not_sqlite_says_so(tmp_path, readonly):
    path = tmp_path / "notes.txt"
    path.write_text("some notes\n")
    with pytest.raises(StoreError, match=r"notes\.txt: not an SQLite file, so not a judged-edit store$"):
        JudgedEditStore(path, readonly=readonly)
    assert path.read_text() == "some notes\n"


def test_a_store_that_may_not_be_created_must_exist(tmp_path):
    with pytest.raises(StoreError, match="no such store"):
        JudgedEditStore(tmp_path / "missing.sqlite", create=False)
    assert _files(tmp_path / "missing.sqlite") == []


def test_a_pair_cut_inside_its_lengths_says_so_clearly():
    with pytest.raises(ValueError) as info:
        unpack_pair(b"\x00")
    assert str(info.value) == "ends inside its length header (the value is cut short)"
    with pytest.raises(ValueError, match="malformed length"):
        unpack_pair(b"\x00" + b"\x80" * 6)
