"""The one JSON reader: every JSON input of semcer (JSONL collections, JSON-array collections,
labelled edits, judged edits, ratings, JSON command-line options) is parsed here, by
:func:`records` (JSONL), :func:`array_records` (a JSON array) or :func:`parse_option` (one value
given on the command line), so they all accept and refuse the same things.

Files are read as bytes (:func:`read_bytes`) and decoded by :func:`decode`: strict UTF-8 (a
leading BOM is removed; a NUL is refused: this is not a text file), after :func:`binary_kind` has
refused what is recognisably not text (PDF, PNG, JPEG, GIF, TIFF, WebP, JPEG 2000, ZIP (also
.docx, .xlsx, .odt, .epub), legacy Office, SQLite, Parquet, Arrow, NumPy, ELF, gzip, bzip2, xz,
zstd, 7-Zip, UTF-16 and UTF-32 text), naming what it looks like. Lines are split on ``\\n``
only (``\\r\\n`` counts as one break; U+2028 and the other characters ``str.splitlines``
breaks at are ordinary text, as JSON allows them inside strings). Blank lines are allowed only at
the end. Each line holds one JSON value; a JSON escape may not smuggle in a NUL or a lone
surrogate; nesting deeper than the parser allows and integers longer than Python converts are
refused with the line, never a traceback.
"""

from __future__ import annotations

import json
import json.scanner
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from semcer.errors import InputError

_BOM = b"\xef\xbb\xbf"

#: ``(magic bytes at offset 0, format name, what the file looks like)``, most specific first.
_MAGIC: tuple[tuple[bytes, str, str], ...] = (
    (b"\x1f\x8b", "gzip", "gzip-compressed data"),
    (b"%PDF-", "pdf", "a PDF document"),
    (b"\x89PNG\r\n\x1a\n", "png", "a PNG image"),
    (b"\xff\xd8\xff", "jpeg", "a JPEG image"),
    (b"GIF87a", "gif", "a GIF image"),
    (b"GIF89a", "gif", "a GIF image"),
    (b"II*\x00", "tiff", "a TIFF image"),
    (b"MM\x00*", "tiff", "a TIFF image"),
    (b"\x00\x00\x00\x0cjP  \r\n\x87\n", "jpeg2000", "a JPEG 2000 image"),
    (b"PK\x03\x04", "zip", "a ZIP archive (or .docx, .xlsx, .odt, .epub)"),
    (b"PK\x05\x06", "zip", "a ZIP archive (or .docx, .xlsx, .odt, .epub)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "ole", "a legacy Microsoft Office document (.doc, .xls)"),
    (b"SQLite format 3\x00", "sqlite", "an SQLite database (a judged-edit store?)"),
    (b"ARROW1", "arrow", "an Arrow (Feather) file"),
    (b"\x93NUMPY", "npy", "a NumPy array file"),
    (b"\x7fELF", "elf", "an executable (ELF)"),
    (b"\xfd7zXZ\x00", "xz", "xz-compressed data"),
    (b"\x28\xb5\x2f\xfd", "zstd", "zstd-compressed data"),
    (b"7z\xbc\xaf\x27\x1c", "7z", "a 7-Zip archive"),
    (b"\xff\xfe\x00\x00", "utf-32", "UTF-32 text (little-endian byte-order mark)"),
    (b"\x00\x00\xfe\xff", "utf-32", "UTF-32 text (big-endian byte-order mark)"),
    (b"\xff\xfe", "utf-16", "UTF-16 text (little-endian byte-order mark)"),
    (b"\xfe\xff", "utf-16", "UTF-16 text (big-endian byte-order mark)"),
)
_BZIP2 = re.compile(rb"BZh[1-9]1AY&SY")


def binary_format(data: bytes) -> tuple[str, str] | None:
    """``(name, what it looks like)`` when the first bytes of ``data`` are a known file signature
    (``("pdf", "a PDF document")``, ``("gzip", "gzip-compressed data")``, ...); None otherwise."""
    for magic, fmt, kind in _MAGIC:
        if data.startswith(magic):
            return fmt, kind
    if data.startswith(b"PAR1") and data.endswith(b"PAR1") and len(data) >= 8:
        return "parquet", "a Parquet file"
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "webp", "a WebP image"
    if _BZIP2.match(data):
        return "bzip2", "bzip2-compressed data"
    return None


def binary_kind(data: bytes) -> str | None:
    """What ``data`` looks like when it is a known binary format (see :func:`binary_format`)."""
    found = binary_format(data)
    return None if found is None else found[1]


def refuse_binary(data: bytes, name: str) -> None:
    """An InputError naming what ``data`` looks like when it is a known binary format."""
    kind = binary_kind(data)
    if kind is None:
        return
    if kind.startswith(("UTF-16", "UTF-32")):
        raise InputError(f"{name}: looks like {kind}, not UTF-8 text; save it as UTF-8")
    if kind.endswith("compressed data") and not kind.startswith("gzip"):
        raise InputError(f"{name}: looks like {kind}, not UTF-8 text; decompress it first")
    if kind.startswith("gzip"):
        raise InputError(f"{name}: looks like gzip-compressed data, not UTF-8 text (not expected here); "
                         "decompress it first (gunzip)")
    raise InputError(f"{name}: looks like {kind}, not UTF-8 text; semcer reads UTF-8 text files")


def read_bytes(path: str | os.PathLike[str], name: str | None = None) -> bytes:
    """The bytes of a file; an InputError naming it when it cannot be read."""
    name = str(path) if name is None else name
    try:
        return Path(path).read_bytes()
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory, expected a file") from None
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from None


def decode(data: bytes, name: str) -> str:
    """Strict UTF-8 without a leading BOM; no NUL characters; no known binary format (see
    :func:`refuse_binary`). Errors name the file, and the line and byte offset where one applies."""
    refuse_binary(data, name)
    skip = len(_BOM) if data.startswith(_BOM) else 0
    try:
        text = data[skip:].decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = skip + exc.start
        line = data.count(b"\n", 0, offset) + 1
        bad = data[offset : offset + 1].hex().upper()
        raise InputError(
            f"{name}:{line}: invalid UTF-8 (byte 0x{bad} at byte offset {offset}): a binary file, or text in "
            "another encoding (Latin-1, Windows-1252)? save the file as UTF-8"
        ) from None
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise InputError(f"{name}:{line}: NUL character (U+0000) in the input: a binary file, or UTF-16 text? "
                         "semcer reads UTF-8 text")
    return text


def lines(text: str) -> list[str]:
    """Split on ``\\n`` only; one ``\\r`` before each ``\\n`` is removed; a final ``\\n`` adds no line."""
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")  # every CRLF is a line break; a lone CR is kept
    out = text.split("\n")
    if not out[-1]:
        out.pop()
    return out


_scan = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # (typeshed types it oddly)
_WS = re.compile(r"[ \t\n\r]*")


class MalformedJSON(InputError):
    """Text that is not JSON at all (as opposed to JSON nested too deeply or holding a huge number)."""


def parse(line: str, where: str) -> object:
    """One JSON value from one line (``json.loads``, a third faster on the usual line)."""
    try:
        try:
            obj, end = _scan(line, 0)
            if end == len(line) or not line[end:].strip():
                return obj
        except (StopIteration, json.JSONDecodeError):
            pass
        return json.loads(line)  # leading whitespace, trailing data or an error: json.loads explains
    except json.JSONDecodeError as exc:
        raise MalformedJSON(f"{where}: malformed JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply to read") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise unreadable(exc, where) from None


def scan_value(text: str, pos: int, where: str) -> tuple[object, int]:
    """The JSON value starting at ``text[pos]`` and the position after it (the parser of
    :func:`parse`, with its errors; nothing after the value is looked at)."""
    try:
        return _scan(text, pos)
    except StopIteration:
        raise MalformedJSON(f"{where}: malformed JSON: Expecting value") from None
    except json.JSONDecodeError as exc:
        raise MalformedJSON(f"{where}: malformed JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply to read") from None
    except ValueError as exc:
        raise unreadable(exc, where) from None


_DIGITS = re.compile(r"value has (\d+) digits")


def unreadable(exc: ValueError, where: str) -> InputError:
    """The error for a JSON value the parser cannot convert: an integer longer than Python converts
    (``{"id": 1234...}``, 4,300 digits and more), said for the command line, not as Python's advice
    to call ``sys.set_int_max_str_digits()``."""
    m = _DIGITS.search(str(exc))
    if m is None:  # pragma: no cover - integers are the only values json converts that can fail
        return InputError(f"{where}: unreadable JSON value: {exc}")
    return InputError(f"{where}: unreadable JSON value: an integer of {int(m[1]):,} digits, longer than semcer reads "
                      f"({sys.get_int_max_str_digits():,}); ids must be strings or integers of reasonable size: write "
                      'a long number as a string ("id": "123...")')


def parse_option(text: str, flag: str) -> object:
    """One JSON value given on the command line (``--extra-body``...): the same parser and checks as
    the files, the errors naming the option."""
    value = parse(text, flag)
    if "\\u" in text:
        check_strings(value, flag)
    return value


def read_document(path: str) -> object:
    """The one JSON document of the file ``path`` (a score JSON): strict UTF-8, the parser and string
    checks of every file; :class:`MalformedJSON` when it is not JSON, for the caller to say what it wanted."""
    text = decode(read_bytes(path, path), path)
    value = parse(text, path)
    if "\\u" in text:
        check_strings(value, path)
    return value


def check_strings(value: object, where: str) -> None:
    """Refuse NUL and lone surrogates that a JSON escape (\\u0000, \\ud800) put into a string.

    Iterative: a value the parser accepted (up to its own nesting limit) is walked without
    recursion, so no depth can overflow the stack here."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if "\x00" in v:
                raise InputError(f"{where}: NUL character (U+0000) in a JSON string")
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                raise InputError(f"{where}: lone surrogate escape in a JSON string (not valid Unicode text)") from None
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def records(text: str, name: str) -> Iterator[tuple[str, object]]:
    """``(where, value)`` for each line of a JSONL text (``where`` is ``name:line``)."""
    all_lines = lines(text)
    end = len(all_lines)
    while end and not all_lines[end - 1].strip():  # blank lines at the end are allowed
        end -= 1
    for i in range(end):
        line = all_lines[i]
        where = f"{name}:{i + 1}"
        if not line.strip():
            raise InputError(f"{where}: blank line in a JSONL file (only allowed at the end); "
                             "remove it or give the item an empty text")
        obj = parse(line, where)
        if "\\u" in line:  # escapes can smuggle in what the raw bytes could not hold
            check_strings(obj, where)
        yield where, obj


class _Lines:
    """``name:line`` of positions in a text, counted forward only (each character counted once)."""

    def __init__(self, text: str, name: str) -> None:
        self.text, self.name, self.pos, self.line = text, name, 0, 1

    def line_of(self, pos: int) -> int:
        if pos < self.pos:  # pragma: no cover - positions only grow
            return self.text.count("\n", 0, pos) + 1
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line

    def where(self, pos: int) -> str:
        return f"{self.name}:{self.line_of(pos)}"

    def malformed(self, pos: int, msg: str) -> MalformedJSON:
        line = self.line_of(pos)
        column = pos - self.text.rfind("\n", 0, pos)
        return MalformedJSON(f"{self.name}:{line}: malformed JSON: {msg} (column {column})")


def array_records(text: str, name: str) -> Iterator[tuple[str, object]]:
    """``(where, value)`` for each element of a JSON text holding one array (``where`` is the
    ``name:line`` where the element starts). The same parser and checks as :func:`records`; an
    InputError when the text is not one array (a single object is named as such)."""
    at = _Lines(text, name)
    i = _WS.match(text, 0).end()  # type: ignore[union-attr]
    if text[i : i + 1] != "[":
        if text[i : i + 1] == "{":
            try:
                value = parse(text, name)
            except MalformedJSON:
                pass
            else:
                raise InputError(single_object(at.where(i), value, name))
        raise at.malformed(i, "expected a JSON array '[' of objects (one object per line is JSONL)")
    i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
    escapes = "\\u" in text
    if text[i : i + 1] == "]":
        i += 1
    else:
        while True:
            start = i
            try:
                value, i = _scan(text, i)
            except StopIteration as exc:
                raise at.malformed(exc.value, "Expecting value") from None
            except json.JSONDecodeError as exc:
                raise at.malformed(exc.pos, exc.msg) from None
            except RecursionError:
                raise InputError(f"{at.where(start)}: JSON nested too deeply to read") from None
            except ValueError as exc:  # e.g. an integer with more digits than Python converts
                raise unreadable(exc, at.where(start)) from None
            where = at.where(start)
            if escapes:
                check_strings(value, where)
            yield where, value
            i = _WS.match(text, i).end()  # type: ignore[union-attr]
            c = text[i : i + 1]
            if c == ",":
                i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
            elif c == "]":
                i += 1
                break
            else:
                raise at.malformed(i, "Expecting ',' delimiter")
    end = _WS.match(text, i).end()  # type: ignore[union-attr]
    if end != len(text):
        raise at.malformed(end, "Extra data")


def single_object(where: str, value: object, name: str) -> str:
    """The message for a JSON document that is one object where records were expected (pretty-printed
    or on one line); where one of its keys holds an array of objects (``{"items": [...]}``), how to
    take the records out of it."""
    msg = (f"{where}: a single JSON object; a JSON input is an array of objects "
           '([{"id": ..., "text": ...}, ...]); one object per line is JSONL')
    key = records_key(value)
    if key is None or "'" in key:
        return msg
    path = f".{key}" if re.fullmatch(r"[A-Za-z_]\w*", key) else f".[{json.dumps(key)}]"
    out = Path(name).stem + "-records.jsonl" if name != "<stdin>" else "records.jsonl"
    return f"{msg}; its {key!r} holds an array of objects: take them out with jq -c '{path}[]' {name} > {out}"


def records_key(value: object) -> str | None:
    """The first key of the object ``value`` that holds a non-empty array of objects, or None."""
    if type(value) is not dict:
        return None
    return next((k for k, v in value.items() if type(v) is list and v and type(v[0]) is dict), None)


def read_objects(path: str | os.PathLike[str], what: str = "a JSON object") -> list[tuple[str, dict]]:
    """Every line of a JSONL file as ``(where, object)``; an InputError for a line that is not an
    object, for a JSON array (a JSON document, not JSON Lines) and for an empty file."""
    name = str(path)
    text = decode(read_bytes(path, name), name)
    out = []
    try:
        for where, obj in records(text, name):
            if type(obj) is not dict:
                if type(obj) is list and where == f"{name}:1" and _is_array_of_objects(obj):
                    raise InputError(_array_not_jsonl(name))
                raise InputError(f"{where}: expected {what}, got {json_type(obj)}")
            out.append((where, obj))
    except MalformedJSON:
        if text.lstrip().startswith("["):
            raise InputError(_array_not_jsonl(name)) from None
        raise
    if not out:
        raise InputError(f"{name}: no records (the file is empty)")
    return out


def _is_array_of_objects(value: list) -> bool:
    return bool(value) and all(type(v) is dict for v in value)


def _array_not_jsonl(name: str) -> str:
    return (f"{name}: a JSON array; this input is JSON Lines, one JSON object per line "
            f"(convert it with: jq -c '.[]' {name})")


def json_type(obj: object) -> str:
    """How to name the JSON type of ``obj`` in a message."""
    names = {list: "an array", str: "a string", int: "a number", float: "a number",
             bool: "a boolean", type(None): "null", dict: "an object"}
    return names.get(type(obj), type(obj).__name__)
