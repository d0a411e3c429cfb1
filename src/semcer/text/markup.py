r"""Markdown and HTML markup removed from a page transcription (the ``strip-markdown`` policy step).

Vision-language models often answer a page in Markdown: headings, emphasis, tables, LaTeX. Scored
against a plain reference, every ``#``, ``*`` and ``|`` is an insertion. This step removes the
markup and keeps what it marks up, by the rules below, applied in this order. It is deterministic,
works line by line for block markup and within one line for inline markup, and is *not* local to
grapheme clusters (it removes whole constructs), so a policy using it maps edits back to original
offsets only where the result allows (:meth:`semcer.text.policy.TextPolicy.offset_map`).

Block markup (a line whose only content was markup is removed with its line break; a line that
was already empty stays):

==================================  ==============================  =================================
construct                           goes                            stays
==================================  ==============================  =================================
fenced code (```` ``` ```` / ``~~~``)  the fence lines, info string   the lines inside, verbatim (no
                                                                    other rule applies to them)
ATX heading ``## Title ##``         ``#``\ s, the closing ``#``\ s  ``Title``
setext underline ``===`` / ``---``  the underline line              the heading line
thematic break ``***`` ``---``      the line
block quote ``> > text``            every ``>`` and one space        ``text``
list item ``- x``, ``1. x``,        the marker, its spaces, the     ``x`` (indentation also goes)
``* [x] y``                         task box ``[ ]``/``[x]``
table separator ``| --- | :-: |``   the line
table row ``| a | b |``             the pipes, cell padding         the cells, separated by one space
link definition ``[r]: http://...`` the line
``$$`` alone on a line              the line                        the math lines between
==================================  ==============================  =================================

A table row is a line that holds ``|`` and either starts or ends with ``|``, or is the header row
right above a separator row, or follows a table row up to a blank line; an escaped ``\|`` is a
character, not a pipe.

Inline markup (within one line):

==================================  ==============================  =================================
construct                           goes                            stays
==================================  ==============================  =================================
code span ```` `x` ````, ``` ``x`` ```  the backticks (and one space    ``x``, verbatim (no other rule
                                    padding both ends)              applies inside)
LaTeX ``$x$``, ``$$x$$``,           the delimiters                  ``x``, verbatim
``\(x\)``, ``\[x\]``
image ``![alt](url "t")``           everything but the alt text     ``alt``
link ``[text](url)``,               the brackets and the target     ``text``
``[text][ref]``
autolink ``<https://x.org>``        the angle brackets              ``https://x.org``
emphasis ``**x**`` ``__x__``        the delimiters                  ``x``
``*x*`` ``_x_`` ``~~x~~``
HTML ``<br>``, ``<br/>``            the tag                         a line break (a space in a table
                                                                    row or between HTML cells)
HTML table ``<tr>``, ``<td>``       the tags                        cells separated by one space,
                                                                    one row per line
any other HTML tag, ``<!-- -->``    the tag / comment               its content
entity ``&amp;`` ``&#233;``         the reference (with ``;`` only) the character it names
escape ``\*``, ``\_``, ``\#``       the backslash                   the character
==================================  ==============================  =================================

``$`` is LaTeX only as pandoc reads it: the opening ``$`` is followed by a non-space, the closing
``$`` is preceded by a non-space and not followed by a digit (``$5 and $10`` stays as it is).
``*`` and ``_`` are emphasis only when the opening delimiter is followed and the closing one
preceded by a non-space; ``_`` not inside a word (``snake_case_name`` stays). Indented code blocks
are not recognised (indentation stays). Code spans and escapes are protected while the other rules
run by placeholder characters (the noncharacters U+FDD0..U+FDEF, U+FFFE, U+FFFF); in a text that
already holds one of those, they are not protected (the other rules then also apply inside code
spans, and escapes are removed last).
"""

from __future__ import annotations

import html
import re

__all__ = ["strip_markdown"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^ {0,3}#{1,6}(?=\s|$)[ \t]*")
_ATX_CLOSE = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_SETEXT_EQ = re.compile(r"^ {0,3}=+[ \t]*$")
_THEMATIC = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_QUOTE = re.compile(r"^ {0,3}>[ \t]?")
_LIST = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_TASK = re.compile(r"^\[[ xX]\][ \t]+")
_LINK_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*\S+.*$")
_SEPARATOR = re.compile(r"^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_MATH_FENCE = re.compile(r"^[ \t]*\$\$[ \t]*$")

_CODE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$")
_PAREN_MATH = re.compile(r"\\\((.+?)\\\)")
_BRACKET_MATH = re.compile(r"\\\[(.+?)\\\]")
_INLINE_MATH = re.compile(r"\$(?=\S)([^$]*?)(?<=\S)\$(?!\d)")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_AUTOLINK = re.compile(r"<((?:https?|ftp)://[^\s<>]+|mailto:[^\s<>]+)>")
_BR = re.compile(r"<br\s*/?>", re.I)
_CELL_GAP = re.compile(r"</t[dh]\s*>\s*<t[dh]\b[^>]*>", re.I)
_ROW_GAP = re.compile(r"</tr\s*>\s*<tr\b[^>]*>", re.I)
_TAG = re.compile(r"<!--.*?-->|</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>", re.S)
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_BOLD_STAR = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_BOLD_UNDER = re.compile(r"(?<![\w])__(?=\S)(.+?)(?<=\S)__(?![\w])")
_EM_STAR = re.compile(r"\*(?=\S)(.+?)(?<=\S)\*")
_EM_UNDER = re.compile(r"(?<![\w])_(?=\S)(.+?)(?<=\S)_(?![\w])")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_PIPE = re.compile(r"(?<!\\)\|")

_PUNCT = "".join(chr(c) for c in range(0x21, 0x7F) if not chr(c).isalnum())
_ESC_MARK = {p: chr(0xFDD0 + i) for i, p in enumerate(_PUNCT)}  # 32 ASCII punctuation characters, 32 noncharacters
_ESC_BACK = {v: k for k, v in _ESC_MARK.items()}
_OPEN, _CLOSE = "\uffff", "\ufffe"
_RESERVED = re.compile("[\ufdd0-\ufdef\ufffe\uffff]")
_SLOT = re.compile(f"{_OPEN}([0-9]+){_CLOSE}")


class _Inline:
    """Inline rules for one text; ``protect`` says whether placeholders may be used."""

    def __init__(self, protect: bool) -> None:
        self.protect = protect
        self.slots: list[str] = []

    def _slot(self, content: str) -> str:
        if not self.protect:
            return content
        self.slots.append(content)
        return f"{_OPEN}{len(self.slots) - 1}{_CLOSE}"

    def _code(self, m: re.Match[str]) -> str:
        body = m.group(2)
        if len(body) >= 2 and body[0] == " " and body[-1] == " " and body.strip(" "):
            body = body[1:-1]
        return self._slot(body)

    def __call__(self, line: str, in_table: bool) -> str:
        line = _CODE.sub(self._code, line)
        line = _DISPLAY_MATH.sub(lambda m: self._slot(m.group(1)), line)
        line = _PAREN_MATH.sub(lambda m: self._slot(m.group(1)), line)
        line = _BRACKET_MATH.sub(lambda m: self._slot(m.group(1)), line)
        line = _INLINE_MATH.sub(lambda m: self._slot(m.group(1)), line)
        if self.protect:
            line = _ESCAPE.sub(lambda m: _ESC_MARK[m.group(1)], line)
        line = _IMAGE.sub(r"\1", line)
        line = _LINK.sub(r"\1", line)
        line = _REF_LINK.sub(r"\1", line)
        line = _AUTOLINK.sub(r"\1", line)
        line = _BR.sub(" " if in_table else "\n", line)
        line = _CELL_GAP.sub(" ", line)
        line = _ROW_GAP.sub("\n", line)
        line = _TAG.sub("", line)
        line = _STRIKE.sub(r"\1", line)
        for _ in range(2):  # ***x*** and nesting: bold, then emphasis, twice
            line = _BOLD_STAR.sub(r"\1", line)
            line = _BOLD_UNDER.sub(r"\1", line)
            line = _EM_STAR.sub(r"\1", line)
            line = _EM_UNDER.sub(r"\1", line)
        line = _ENTITY.sub(lambda m: html.unescape(m.group(0)), line)
        if not self.protect:
            return _ESCAPE.sub(r"\1", line)
        return line

    def restore(self, text: str) -> str:
        if not self.protect:
            return text
        while _SLOT.search(text):  # a slot may hold another (math inside a code span is not re-slotted, but be safe)
            text = _SLOT.sub(lambda m: self.slots[int(m.group(1))], text)
        return "".join(_ESC_BACK.get(c, c) for c in text) if any(c in _ESC_BACK for c in text) else text


def _cells(line: str) -> str:
    parts = _PIPE.split(line.strip())
    if parts and not parts[0].strip():
        parts = parts[1:]
    if parts and not parts[-1].strip():
        parts = parts[:-1]
    return " ".join(p.strip() for p in parts)


def _is_row(line: str) -> bool:
    s = line.strip()
    return bool(_PIPE.search(s)) and (s.startswith("|") or (s.endswith("|") and not s.endswith("\\|")))


def _block_content(line: str) -> str:
    """A line without its block markers: quote markers, then a heading's hashes or a list (or task) marker."""
    while q := _QUOTE.match(line):
        line = line[q.end():]
    if h := _ATX.match(line):
        return _ATX_CLOSE.sub("", line[h.end():])
    if li := _LIST.match(line):
        line = line[li.end():]
        if t := _TASK.match(line):
            line = line[t.end():]
    return line


def strip_markdown(text: str) -> str:
    """``text`` without its Markdown and HTML markup (rules in the module documentation)."""
    if not text:
        return text
    inline = _Inline(protect=not _RESERVED.search(text))
    lines = text.split("\n")
    n = len(lines)
    separator = [bool(_SEPARATOR.match(ln)) and "|" in ln for ln in lines]
    out: list[str] = []
    fence: str | None = None
    in_table = False
    in_math = False
    for i, raw in enumerate(lines):
        if fence is not None:
            stripped = raw.strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                fence = None
                continue
            out.append(raw)
            continue
        m = _FENCE.match(raw)
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            fence = m.group(1)
            continue
        if _MATH_FENCE.match(raw):
            in_math = not in_math
            continue
        if in_math:
            out.append(raw)
            continue
        if not raw.strip():
            in_table = False
            out.append(raw)
            continue
        if separator[i]:
            in_table = True
            continue
        header = i + 1 < n and separator[i + 1] and bool(_PIPE.search(raw))
        row = header or _is_row(raw) or (in_table and bool(_PIPE.search(raw)))
        line = raw
        if row:
            in_table = True
            line = _cells(line)
        else:
            in_table = False
            if _THEMATIC.match(line) or _LINK_DEF.match(line):
                continue
            if _SETEXT_EQ.match(line) and out and out[-1].strip():
                continue
            line = _block_content(line)
        line = inline(line, row)
        if not line.strip():
            continue  # the line held only markup
        out.extend(line.split("\n"))
    return inline.restore("\n".join(out))
