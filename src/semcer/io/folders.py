"""Walking an input folder, and what a file named like an input is when it cannot be read: the one
rule of symbolic links for every reader of a folder (a directory of pages, of Parquet shards, and
:func:`semcer.io.formats.pair_files`).

A symbolic link is what it points to: a link to a folder is walked like a folder, a link to a file
is a file under the link's own name (its id or pairing key is the link's path, wherever the file
lies). A link back to a folder that holds it, or a second way to one folder, is refused: it would
loop, or read the folder's pages twice. A second name for one file is not refused: two pages of a
book may have the same ground truth. A broken link is named with where it points.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator

from semcer.errors import InputError

__all__ = ["file_problem", "walk_folders"]


def walk_folders(root: str | os.PathLike[str], skip: tuple[str, ...]) -> Iterator[tuple[str, str, list[str]]]:
    """``(folder, prefix, file names)`` for ``root`` and every folder below it, in name order
    (depth first), ``prefix`` the folder's relative path with ``/`` and a final ``/`` (``""`` for
    root). Names starting with one of ``skip`` are left out; a symbolic link to a folder is
    followed, like a folder; every other name (links to files, broken links) is a file. A folder
    that cannot be listed is an error naming it, and so is a folder reached twice: a link back to a
    folder that holds it would loop, a second way to one folder would read its pages twice."""
    seen: dict[tuple[int, int], str] = {}
    stack: list[tuple[str, str, frozenset[tuple[int, int]]]] = [(str(root), "", frozenset())]
    while stack:
        path, prefix, above = stack.pop()
        try:
            st = os.stat(path)
        except OSError as exc:
            raise InputError(f"{path}: cannot read this folder: {exc.strerror or exc}") from None
        ident = (st.st_dev, st.st_ino)
        if ident in above:
            raise InputError(f"{path}: a link back to {seen[ident]}, a folder that holds it: reading it would loop "
                             f"forever; remove the link or point it outside {root}")
        if ident in seen:
            raise InputError(f"{path}: the same folder as {seen[ident]} (through a symbolic link): its pages would "
                             "be read twice; remove one of the two")
        seen[ident] = path
        files, folders = _listing(path, skip, root)
        yield path, prefix, sorted(files)
        stack += [(os.path.join(path, d), f"{prefix}{d}/", above | {ident}) for d in sorted(folders, reverse=True)]


def _listing(path: str, skip: tuple[str, ...], root: str | os.PathLike[str]) -> tuple[list[str], list[str]]:
    """The names of the files and of the folders (links to folders included) in the folder ``path``."""
    try:
        with os.scandir(path) as entries:
            named = [(e.name, _is_folder(e)) for e in entries if not e.name.startswith(skip)]
    except OSError as exc:
        raise InputError(f"{path}: cannot list this folder ({exc.strerror or exc}); give it read and search "
                         f"permission (chmod u+rx) or move it out of {root}") from None
    return [n for n, folder in named if not folder], [n for n, folder in named if folder]


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows a symbolic link
    except OSError:  # pragma: no cover - a file whose type cannot be known is read as one, and says why
        return False


def file_problem(path: str | os.PathLike[str]) -> str | None:
    """None when ``path`` is a regular file, or a symbolic link (through any number of links) to one;
    else what it is, to follow ``PATH: `` in a message: ``a broken symbolic link (to ../gt/p1.xml,
    which does not exist)``, ``a symbolic link that loops``, ``not a regular file (a folder)``,
    ``not a regular file (a pipe, socket or device)``, ``no such file``, or why it cannot be looked at."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if not os.path.islink(path):
            return "no such file" if exc.errno == errno.ENOENT else f"cannot read: {exc.strerror or exc}"
        if exc.errno == errno.ELOOP:
            return "a symbolic link that loops (a link that leads back to itself)"
        why = "which does not exist" if exc.errno == errno.ENOENT else f"which cannot be read: {exc.strerror or exc}"
        return f"a broken symbolic link (to {_target(path)}, {why})"
    if stat.S_ISREG(mode):
        return None
    return f"not a regular file ({'a folder' if stat.S_ISDIR(mode) else 'a pipe, socket or device'})"


def _target(path: str | os.PathLike[str]) -> str:
    try:
        return os.readlink(path)
    except OSError:  # pragma: no cover - a link that vanished between stat and readlink
        return "?"

