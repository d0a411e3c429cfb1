"""The one JSONL reader: every JSONL input of semcer (collections, labelled edits, judged edits,
ratings) is read by :func:`records`, so they all accept and refuse the same things.

Files are read as bytes and decoded as strict UTF-8 (a leading BOM is removed; a NUL is refused:
this is not a text file). Lines are split on ``\\n`` only (``\\r\\n`` counts as one break; U+2028
and the other characters ``str.splitlines`` breaks at are ordinary text, as JSON allows them
inside strings). Blank lines are allowed only at the end. Each line holds one JSON value; a JSON
escape may not smuggle in a NUL or a lone surrogate; nesting deeper than the parser allows and
integers longer than Python converts are refused with the line, never a traceback.
"""

from __future__ import annotations

import json
import json.scanner
import os
from collections.abc import Iterator
from pathlib import Path

from semcer.errors import InputError

_BOM = b"\xef\xbb\xbf"


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
    """Strict UTF-8 without a leading BOM; no NUL characters. Errors name line and byte offset."""
    skip = len(_BOM) if data.startswith(_BOM) else 0
    try:
        text = data[skip:].decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = skip + exc.start
        line = data.count(b"\n", 0, offset) + 1
        bad = data[offset : offset + 1].hex().upper()
        raise InputError(
            f"{name}:{line}: invalid UTF-8 (byte 0x{bad} at byte offset {offset}); save the file as UTF-8"
        ) from None
    nul = text.find("\x00")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise InputError(f"{name}:{line}: NUL character (U+0000) in the input; is this a text file?")
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
        raise InputError(f"{where}: malformed JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply to read") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise InputError(f"{where}: unreadable JSON value: {exc}") from None


def check_strings(value: object, where: str) -> None:
    """Refuse NUL and lone surrogates that a JSON escape (\\u0000, \\ud800) put into a string."""
    if isinstance(value, str):
        if "\x00" in value:
            raise InputError(f"{where}: NUL character (U+0000) in a JSON string")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(f"{where}: lone surrogate escape in a JSON string (not valid Unicode text)") from None
    elif isinstance(value, dict):
        for k, v in value.items():
            check_strings(k, where)
            check_strings(v, where)
    elif isinstance(value, list):
        for v in value:
            check_strings(v, where)


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


def read_objects(path: str | os.PathLike[str], what: str = "a JSON object") -> list[tuple[str, dict]]:
    """Every line of a JSONL file as ``(where, object)``; an InputError for a line that is not an object."""
    name = str(path)
    out = []
    for where, obj in records(decode(read_bytes(path, name), name), name):
        if type(obj) is not dict:
            raise InputError(f"{where}: expected {what}, got {json_type(obj)}")
        out.append((where, obj))
    if not out:
        raise InputError(f"{name}: no records (the file is empty)")
    return out


def json_type(obj: object) -> str:
    """How to name the JSON type of ``obj`` in a message."""
    names = {list: "an array", str: "a string", int: "a number", float: "a number",
             bool: "a boolean", type(None): "null", dict: "an object"}
    return names.get(type(obj), type(obj).__name__)
