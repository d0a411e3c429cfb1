"""Symbolic links among page files: :func:`semcer.io.formats.pair_files` walks a folder as the
directory reader (:func:`semcer.io.collections.read_collection`) does, by one rule
(:mod:`semcer.io.folders`).

Defects (audit): ``pair_files`` walked with ``os.walk`` and did not follow a symlinked folder (its
pages were left out without a word: neither paired, nor unmatched, nor ignored), and a link to a
folder named like a page vanished the same way; a broken link was paired and then reported as
``cannot read: No such file or directory`` (or ``no such file`` when given by name), never as a
broken link nor where it pointed; a pipe given as a file was paired and refused only when read.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import read_error, write

from semcer.errors import InputError
from semcer.io.collections import PageOptions, read_collection
from semcer.io.folders import file_problem
from semcer.io.formats import pair_files, read_pairs


def _texts(pairs) -> list[tuple[str, str, str]]:
    return [(p.key, p.ref.text, p.hyp.text) for p in pairs]


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    """``gt`` with a regular page, a link to a page kept elsewhere under another name, and a link
    to a folder of pages; ``ocr`` with the three outputs as regular files."""
    write(tmp_path / "store" / "kept-elsewhere.txt", "Grüße aus Berlin\n")
    write(tmp_path / "store" / "book" / "p3.gt.txt", "Tiếng Việt\n")
    gt = write(tmp_path / "gt" / "p2.gt.txt", "Tấm Cám\n").parent
    os.symlink(tmp_path / "store" / "kept-elsewhere.txt", gt / "p1.gt.txt")
    os.symlink(tmp_path / "store" / "book", gt / "book")
    ocr = write(tmp_path / "ocr" / "p1.txt", "Grusse aus Berlin\n").parent
    write(ocr / "p2.txt", "Tám Cám\n")
    write(ocr / "book" / "p3.txt", "Tieng Viet\n")
    return gt, ocr


def test_a_symlinked_page_and_a_symlinked_folder_pair_like_regular_ones(tmp_path):
    gt, ocr = _tree(tmp_path)
    p = pair_files(gt, ocr)
    # The key is the link's name (p1), not its target's (kept-elsewhere); the folder link is walked.
    assert [(fp.key, fp.ref) for fp in p.pairs] == [
        ("book/p3", str(gt / "book" / "p3.gt.txt")), ("p1", str(gt / "p1.gt.txt")), ("p2", str(gt / "p2.gt.txt"))]
    assert (p.only_refs, p.only_hyps, p.ignored_refs, p.ignored_hyps) == ((), (), (), ())
    assert _texts(read_pairs(p).pairs) == [("book/p3", "Tiếng Việt", "Tieng Viet"),
                                          ("p1", "Grüße aus Berlin", "Grusse aus Berlin"), ("p2", "Tấm Cám", "Tám Cám")]


def test_pair_files_keys_are_the_directory_readers_ids(tmp_path):
    gt, ocr = _tree(tmp_path)
    keys = [fp.key for fp in pair_files(gt, ocr).pairs]
    assert [i.id for i in read_collection(gt).items] == keys == [i.id for i in read_collection(ocr).items]


def test_a_link_to_a_folder_named_like_a_page_is_walked_not_lost(tmp_path):
    write(tmp_path / "store" / "scans.xml" / "q1.gt.txt", "Straße\n")
    gt = write(tmp_path / "gt" / "p1.gt.txt", "x\n").parent
    os.symlink(tmp_path / "store" / "scans.xml", gt / "more.xml")
    ocr = write(tmp_path / "ocr" / "p1.txt", "x\n").parent
    write(ocr / "more.xml" / "q1.txt", "Strasse\n")
    p = pair_files(gt, ocr)
    assert [fp.key for fp in p.pairs] == ["more.xml/q1", "p1"]
    assert (p.only_refs, p.only_hyps) == ((), ())


def test_a_link_loop_and_a_folder_reached_twice_are_refused_as_the_directory_reader_refuses_them(tmp_path):
    gt, ocr = _tree(tmp_path)
    os.symlink(tmp_path / "store" / "book", gt / "copy")
    with pytest.raises(InputError) as info:
        pair_files(gt, ocr)
    assert str(info.value) == (f"{gt / 'copy'}: the same folder as {gt / 'book'} (through a symbolic link): its pages "
                               "would be read twice; remove one of the two")
    assert read_error(gt) == str(info.value)
    os.remove(gt / "copy")
    os.symlink("..", gt / "book" / "up")  # inside store/book: a link back to gt's parent, above both
    with pytest.raises(InputError, match=r"a link back to .*, a folder that holds it: reading it would loop"):
        pair_files(tmp_path / "store", ocr)


def test_a_second_name_for_one_page_is_two_pages(tmp_path):
    """Unlike a folder reached twice: two pages of a book may have one ground truth (blank pages)."""
    gt = write(tmp_path / "gt" / "p1.gt.txt", "Kapitel 1\n").parent
    os.symlink("p1.gt.txt", gt / "p9.gt.txt")
    ocr = write(tmp_path / "ocr" / "p1.txt", "Kapitel 1\n").parent
    write(ocr / "p9.txt", "Kapitel l\n")
    assert _texts(read_pairs(pair_files(gt, ocr)).pairs) == [("p1", "Kapitel 1", "Kapitel 1"),
                                                             ("p9", "Kapitel 1", "Kapitel l")]


def test_a_broken_link_in_a_folder_is_named_with_where_it_points(tmp_path):
    gt, ocr = _tree(tmp_path)
    os.symlink("../store/gone.gt.xml", gt / "p4.gt.xml")
    write(ocr / "p4.xml", "<x/>")
    p = pair_files(gt, ocr)
    assert [fp.key for fp in p.pairs] == ["book/p3", "p1", "p2", "p4"]  # not dropped: it is meant as a page
    want = f"{gt / 'p4.gt.xml'}: a broken symbolic link (to ../store/gone.gt.xml, which does not exist)"
    with pytest.raises(InputError) as info:
        read_pairs(p)
    assert str(info.value) == want
    kept = read_pairs(p, keep_going=True)
    assert [k for k, _, _ in _texts(kept.pairs)] == ["book/p3", "p1", "p2"]
    assert kept.failures[0] == (str(gt / "p4.gt.xml"), want)  # then ocr/p4.xml's own error (not a page)
    assert read_error(gt) == (f"{gt / 'p4.gt.xml'}: named like a page but cannot be read as one: a broken symbolic "
                              "link (to ../store/gone.gt.xml, which does not exist); remove it or move it out of the "
                              "directory")
    c = read_collection(gt, pages=PageOptions(keep_going=True))
    assert [i.id for i in c.items] == ["book/p3", "p1", "p2"]


def test_a_broken_link_given_by_name_is_refused_naming_it(tmp_path):
    link = tmp_path / "p1.gt.xml"
    os.symlink(tmp_path / "nowhere.xml", link)
    ocr = write(tmp_path / "p1.xml", "<x/>")
    want = f"{link}: a broken symbolic link (to {tmp_path / 'nowhere.xml'}, which does not exist)"
    for refs in (link, [link]):
        with pytest.raises(InputError) as info:
            pair_files(refs, [ocr])
        assert str(info.value) == want
    with pytest.raises(InputError, match="no such file or directory"):  # a path that is nothing at all
        pair_files(tmp_path / "nope", [ocr])


def test_a_link_given_by_name_is_the_file_it_points_to(tmp_path):
    target = write(tmp_path / "store" / "scan-0001.txt", "Ελληνικά\n")
    link = tmp_path / "p1.gt.txt"
    os.symlink(target, link)
    p = pair_files([link], [write(tmp_path / "p1.txt", "Ελληνικα\n")])
    assert _texts(read_pairs(p).pairs) == [("p1", "Ελληνικά", "Ελληνικα")]


def test_what_a_file_is_when_it_is_not_a_regular_one(tmp_path):
    loop = tmp_path / "loop.xml"
    os.symlink(loop.name, loop)
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    os.symlink(fifo, tmp_path / "to-pipe.txt")
    (tmp_path / "folder").mkdir()
    assert file_problem(write(tmp_path / "a.txt", "a")) is None
    assert file_problem(loop) == "a symbolic link that loops (a link that leads back to itself)"
    assert file_problem(fifo) == file_problem(tmp_path / "to-pipe.txt") == "not a regular file (a pipe, socket or device)"
    assert file_problem(tmp_path / "folder") == "not a regular file (a folder)"
    assert file_problem(tmp_path / "none.txt") == "no such file"
    with pytest.raises(InputError, match=r"pipe\.txt: not a regular file \(a pipe, socket or device\)$"):
        pair_files(fifo, [tmp_path / "a.txt"])  # refused before anything is read (a pipe would block)
