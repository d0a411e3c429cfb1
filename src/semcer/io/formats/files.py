"""Pairing reference and output page files by name, and reading the pairs.

**The key of a file** (what pairs it): its name (for a directory, its path relative to the
directory, with ``/``) without ``.gz`` (a gzip-compressed page keys as the page inside it:
``p1.hocr.gz`` is ``p1``), then without its extension (``.xml``, ``.html``, ``.htm``, ``.xhtml``, ``.hocr``,
``.txt``, any case) and then without every trailing marker among ``.gt``, ``.ocr``, ``.pred``,
``.hyp``, ``.page``, ``.alto`` and ``.hocr`` (any case). So, dinglehopper's and OCR-D's
conventions: ``name.gt.xml`` ↔ ``name.ocr.xml``, ``name.xml`` ↔ ``name.xml``, ``name.gt.txt`` ↔
``name.ocr.txt``, ``doc.gt.page.xml`` ↔ ``doc.ocr.alto.xml``, and across formats ``p1.gt.xml`` ↔
``p1.hocr``. A reference and an output pair when their keys are equal.

**Which files.** A directory is walked recursively, as every folder reader of semcer walks one
(:mod:`semcer.io.folders`): a symbolic link to a folder is walked like a folder (a link back to a
folder above it, or a second way to one folder, is refused), a link to a file is a file under the
link's own name (its key is the link's path, wherever the file lies); hidden files and directories
(name starting with ``.``) are skipped; files with one of the extensions above are pages, each also
gzip-compressed (``p1.hocr.gz``, ``p1.gt.txt.gz``: read as :func:`semcer.io.formats.read_page` reads
one, decompressed with the limits of :mod:`semcer.io.compressed`), and so is a broken link named
like one (:func:`read_pairs` names it and where it points, as any file it cannot read); every other
file (images, JSON, ...) is listed in
:attr:`FilePairing.ignored_refs`/``ignored_hyps``, never silently dropped. A list of files, or one
file, is taken as given (keys from the base names), each a regular file or a link to one (a broken
link is an error naming it). Two files of one side with the same key (``a.xml`` and ``a.hocr``) are
an error naming both.

**Unmatched** files are returned in :attr:`FilePairing.only_refs`/``only_hyps`` (sorted): the caller
decides (``--unmatched error|drop``), this module never drops them.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from semcer.errors import InputError
from semcer.io.compressed import without_gz
from semcer.io.folders import file_problem, walk_folders
from semcer.io.formats.page import Page
from semcer.io.formats.read import read_page
from semcer.io.formats.tree import MAX_BYTES, MAX_ELEMENTS

__all__ = ["EXTENSIONS", "MARKERS", "FilePair", "FilePairing", "PagePair", "ReadPairs", "named_like_page", "page_key",
           "pair_files", "read_pairs", "same_page_name"]

EXTENSIONS = (".xml", ".html", ".htm", ".xhtml", ".hocr", ".txt")
MARKERS = (".gt", ".ocr", ".pred", ".hyp", ".page", ".alto", ".hocr")


def named_like_page(name: str) -> bool:
    """Whether a file name (or relative path) is a page's by its extension: one of :data:`EXTENSIONS`,
    itself or before a final ``.gz`` (``p1.hocr``, ``p1.hocr.gz``; any case)."""
    return without_gz(name).lower().endswith(EXTENSIONS)


def page_key(name: str) -> str:
    """The pairing key of a file name or relative path (rule in the module documentation)."""
    stem = name
    low = stem.lower()
    if low.endswith(".gz") and len(stem) > 3:
        stem, low = stem[:-3], low[:-3]
    for ext in EXTENSIONS:
        if low.endswith(ext) and len(stem) > len(ext):
            stem = stem[: -len(ext)]
            break
    changed = True
    while changed:
        changed = False
        low = stem.lower()
        for marker in MARKERS:
            if low.endswith(marker) and len(stem) > len(marker) and stem[-len(marker) - 1] != "/":
                stem = stem[: -len(marker)]
                changed = True
                break
    return stem


def same_page_name(path: str, key: str, first: str, among: str) -> InputError:
    """The error for two files of one side (``among``: where they were found) with the same key."""
    return InputError(f"{path}: same page name {key!r} as {first} {among}; rename one of them (the name without "
                      "extension, .gz and .gt/.ocr pairs the pages)")


@dataclass(frozen=True)
class FilePair:
    key: str
    ref: str  # path of the reference file
    hyp: str  # path of the output file


@dataclass(frozen=True)
class FilePairing:
    """Pairs in key order, and every file that is not in a pair."""

    pairs: tuple[FilePair, ...]
    only_refs: tuple[str, ...]  # reference files with no output of the same key
    only_hyps: tuple[str, ...]
    ignored_refs: tuple[str, ...] = ()  # files of a directory that are not pages (by extension)
    ignored_hyps: tuple[str, ...] = ()


def _files(source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], side: str
           ) -> tuple[dict[str, str], list[str]]:
    """key -> path, and the ignored files, of one side."""
    keyed: dict[str, str] = {}
    ignored: list[str] = []

    def add(key: str, path: str) -> None:
        if key in keyed:
            raise same_page_name(path, key, keyed[key], f"among the {side} files")
        keyed[key] = path

    if isinstance(source, (str, os.PathLike)):
        root = Path(source)
        if not root.exists() and not root.is_symlink():
            raise InputError(f"{root}: no such file or directory")
        if not root.is_dir():
            add(page_key(root.name), _given_file(root))
            return keyed, ignored
        for dirpath, prefix, filenames in walk_folders(root, (".",)):
            for f in filenames:
                path = os.path.join(dirpath, f)
                if named_like_page(f):
                    add(page_key(prefix + f), path)  # a broken link too: read_pairs names it
                else:
                    ignored.append(path)
        return keyed, ignored
    for item in source:
        p = Path(item)
        add(page_key(p.name), _given_file(p))
    return keyed, ignored


def _given_file(p: Path) -> str:
    """The path of a file given by name (not found in a folder): a regular file or a link to one,
    else an error saying what it is."""
    problem = file_problem(p)
    if problem is not None:
        raise InputError(f"{p}: {problem}")
    return str(p)


def pair_files(refs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
               hyps: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> FilePairing:
    """Pair reference and output page files: each of ``refs``/``hyps`` is a directory, one file, or a
    list of files (rules in the module documentation)."""
    ref_files, ref_ignored = _files(refs, "reference")
    hyp_files, hyp_ignored = _files(hyps, "output")
    pairs = tuple(FilePair(k, ref_files[k], hyp_files[k]) for k in sorted(ref_files) if k in hyp_files)
    return FilePairing(
        pairs,
        tuple(sorted(ref_files[k] for k in ref_files if k not in hyp_files)),
        tuple(sorted(hyp_files[k] for k in hyp_files if k not in ref_files)),
        tuple(ref_ignored),
        tuple(hyp_ignored),
    )


@dataclass(frozen=True)
class PagePair:
    key: str
    ref: Page
    hyp: Page


@dataclass(frozen=True)
class ReadPairs:
    """The pairs that could be read, and ``(path, message)`` for each file that could not."""

    pairs: tuple[PagePair, ...]
    failures: tuple[tuple[str, str], ...]


def read_pairs(pairing: FilePairing, *, level: str = "region", dialect: str = "semcer", hyphen: str | None = None,
               keep_going: bool = False, max_bytes: int = MAX_BYTES, max_elements: int = MAX_ELEMENTS) -> ReadPairs:
    """Read both pages of every pair. A file that cannot be read raises its InputError, or, with
    ``keep_going``, is recorded in :attr:`ReadPairs.failures` and its pair left out (the other file
    of the pair is still read, so that its own errors are reported too)."""
    pairs: list[PagePair] = []
    failures: list[tuple[str, str]] = []
    opts = {"level": level, "dialect": dialect, "hyphen": hyphen, "max_bytes": max_bytes, "max_elements": max_elements}
    for fp in pairing.pairs:
        pages = []
        for path in (fp.ref, fp.hyp):
            try:
                pages.append(read_page(path, **opts))  # type: ignore[arg-type]
            except InputError as exc:
                if not keep_going:
                    raise
                failures.append((path, str(exc)))
        if len(pages) == 2:
            pairs.append(PagePair(fp.key, pages[0], pages[1]))
    return ReadPairs(tuple(pairs), tuple(failures))

