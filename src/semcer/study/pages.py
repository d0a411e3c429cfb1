"""The rating app's pages, as HTML strings: every piece of data (OCR text, names, ids) goes through
:func:`esc` (the report's rule: control and bidi characters shown as escapes, then HTML-escaped);
no page holds a script or a style of its own (both are static files, so the Content-Security-Policy
can forbid every inline one); the marked pair is drawn as the HTML report draws it, the output
first, as the reader of OUT sees it. No page shows a score or another reader's answer.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from semcer.api.report import LEVEL_NAMES, split_marked
from semcer.io.ratings import RatedItem
from semcer.judges.llm.prompt import LANGUAGE_NOTE, LEVEL_TEXTS
from semcer.reports.text import safe
from semcer.study.db import Item, RatingRow

PAIR_CHOICES: tuple[tuple[str, str, str], ...] = (
    ("a", "a", "A damages the reader more"), ("equal", "e", "equally damaging"), ("b", "b", "B damages the reader more"))


def esc(text: object) -> str:
    """Data for the page, inert: :func:`semcer.reports.text.safe`, then :func:`html.escape`."""
    return html.escape(safe(text), quote=True)


def page(title: str, body: str, reader: str | None = None, csrf: str | None = None) -> str:
    """A whole page: the shared style and script from /static, nothing inline."""
    top = f'<header class="top"><h1>{esc(title)}</h1><div class="sub">semcer reader study'
    if reader is not None and csrf is not None:
        top += (f' · signed in as <b>{esc(reader)}</b> · <a class="toplink" href="/rate">rate</a> · '
                '<a class="toplink" href="/rubric">rubric</a> · <form class="inline" method="post" action="/signout">'
                f'{hidden("csrf", csrf)}<button class="link" type="submit">sign out</button></form>')
    top += "</div></header>"
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            '<meta name="referrer" content="same-origin">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<title>{esc(title)}</title>\n<link rel="stylesheet" href="/static/study.css">\n'
            '<script src="/static/study.js" defer></script>\n</head>\n<body>\n'
            f"{top}<main>{body}</main>\n</body>\n</html>\n")


def hidden(name: str, value: object) -> str:
    return f'<input type="hidden" name="{esc(name)}" value="{esc(value)}">'


def signin(csrf: str, message: str = "") -> str:
    note = f'<p class="error" role="alert">{esc(message)}</p>' if message else ""
    return page("Sign in", note + (
        '<section class="card"><p>Sign in with the token you were given for this study.</p>'
        '<form method="post" action="/signin" autocomplete="off">'
        f'{hidden("csrf", csrf)}<label>token <input type="password" name="token" id="token" autofocus required '
        'size="32"></label> <button type="submit" id="signin">sign in</button></form></section>'))


def marked_line(marked: str, text: str, unit: str, label: str) -> str:
    """One side of a marked pair as the report draws it: the label, the text, the unit in a mark."""
    head, tail = split_marked(marked, text, unit)
    shown = "\u2423" if unit == " " else unit  # an edited space, visible (as the report's line view shows it)
    mark = '<mark class="empty">\u2013</mark>' if unit == "" else f"<mark>{esc(shown)}</mark>"
    return f'<div><span class="lab">{esc(label)}</span>{esc(head)}{mark}{esc(tail)}</div>'


def marked_pair(record: dict[str, Any]) -> str:
    """The output, then the reference, of one edit, the edited unit marked in both."""
    ctx = RatedItem(str(record["edit_id"]), record.get("lang"), record, "study item", edit_list=True).context()
    return ('<div class="pair text study-pair" id="pair">'
            + marked_line(ctx.marked_hyp, ctx.hyp, ctx.hyp_unit, "out")
            + marked_line(ctx.marked_ref, ctx.ref, ctx.ref_unit, "ref") + "</div>")


def _buttons(options: Sequence[tuple[str, str, str, str]], current: Any) -> str:
    out = []
    for name, value, key, label in options:
        pressed = ' aria-pressed="true"' if current is not None and str(current) == value else ""
        out.append(f'<button type="submit" name="{name}" value="{esc(value)}" data-key="{esc(key)}"{pressed}>'
                   f'<kbd>{esc(key)}</kbd> {esc(label)}</button>')
    return "".join(out)


def rate_page(reader: str, csrf: str, item: Item, pos: int, answered: int, total: int,
              previous: RatingRow | None) -> str:
    """The rating page of one slot (``previous``: the reader's own earlier answer, when revising)."""
    revise = previous is not None
    if item.kind == "edit":
        intro = ("How much damage does the marked edit do to a reader of OUT (who never sees REF)? "
                 "Judge only the marked edit; the line may hold other errors.")
        body = marked_pair(item.data)
        options = [("level", str(k), str(k), f"{LEVEL_NAMES[k]}") for k in range(len(LEVEL_NAMES))]
        current: Any = None if previous is None else previous.level
    else:
        intro = "Two outputs of the same reference: which one damages a reader more?"
        body = ('<div class="pair text study-pair" id="pair">'
                f'<div><span class="lab">A</span>{esc(item.data["a"])}</div>'
                f'<div><span class="lab">B</span>{esc(item.data["b"])}</div>'
                f'<div class="refline"><span class="lab">ref</span>{esc(item.data["ref"])}</div></div>')
        options = [("choice", v, k, label) for v, k, label in PAIR_CHOICES]
        current = None if previous is None else previous.choice
    if previous is not None and previous.verdict == "cannot_judge":
        current = "cannot"
    extra = [("action", "skip", "s", "skip for now"), ("action", "cannot", "x", "cannot judge")]
    status = '<span id="answer-note">your answer is kept; choose again to change it</span>' if revise else ""
    form = ('<form method="post" action="/rate" id="rate-form" class="rate">'
            + hidden("csrf", csrf) + hidden("pos", pos) + (hidden("revise", "1") if revise else "")
            + f'<div class="levels">{_buttons(options, current)}</div>'
            + f'<div class="other">{_buttons(extra, "cannot" if current == "cannot" else None)}</div></form>')
    nav = f'<a href="/rate?pos={pos - 1}" id="back">\u2190 previous item</a>' if pos > 0 else ""
    progress = (f'<div class="bar"><progress id="progress" value="{answered}" max="{total}"></progress> '
                f'<span id="progress-text">{answered} of {total} answered</span> {nav} {status}</div>')
    lang = f'<p class="muted">language: <b>{esc(item.lang)}</b> · item {pos + 1} of {total}</p>'
    return page("Rate", f'<section class="card" data-kind="{item.kind}">{progress}<p>{esc(intro)}</p>{lang}'
                        f"{body}{form}<p class=\"muted keys\">keys: 0\u20134 or a / e / b answer, s skips, x cannot "
                        "judge</p></section>", reader, csrf)


def done_page(reader: str, csrf: str, total: int, last: int) -> str:
    back = f' <a href="/rate?pos={last}" id="back">\u2190 review your last answer</a>' if total else ""
    return page("Done", f'<section class="card" id="done"><p>All {total} items are answered. Thank you!</p>'
                        f"<p>Your answers are saved; you may close this page.{back}</p></section>", reader, csrf)


def later_page(reader: str, csrf: str, pos: int) -> str:
    """A slot not shown to the reader yet (after their next one, or a repeat before its first showing)."""
    back = f'<a href="/rate?pos={pos - 1}" id="back">\u2190 previous item</a> · ' if pos > 0 else ""
    return page("Not yet", '<section class="card" id="later"><p class="error" role="alert">This item is not yet '
                           "shown to you: answer the items before it first.</p>"
                           f'<p>{back}<a href="/rate" id="next">your next item \u2192</a></p></section>', reader, csrf)


def rubric_page(reader: str, csrf: str) -> str:
    rows = "".join(f'<tr><td class="num">{k}</td><td class="num">{k / 4:.2f}</td><td>{esc(text)}</td></tr>'
                   for k, text in enumerate(LEVEL_TEXTS))
    examples = [
        {"edit_id": "ex1", "lang": "vi", "op": "S", "ref_unit": "ấ", "hyp_unit": "á", "ref_pos": 1, "hyp_pos": 1,
         "marked_ref": "T⟦ấ⟧m Cám", "marked_hyp": "T⟦á⟧m Cám"},
        {"edit_id": "ex2", "lang": "en", "op": "D", "ref_unit": "t", "hyp_unit": "", "ref_pos": 5, "hyp_pos": 5,
         "marked_ref": "is no⟦t⟧ valid", "marked_hyp": "is no⟦⟧ valid"},
        {"edit_id": "ex3", "lang": "en", "op": "I", "ref_unit": "", "hyp_unit": "1", "ref_pos": 12, "hyp_pos": 12,
         "marked_ref": "Invoice 4471⟦⟧", "marked_hyp": "Invoice 4471⟦1⟧"},
    ]
    notes = ("a substitution: the tone mark of the name Tấm is lost and it reads as another name, Tám (level 4)",
             "a deletion: the t of \u201cnot\u201d is missing in OUT, shown as an empty mark \u2013",
             "an insertion: OUT has a digit that REF does not, and reads as another number (level 4)")
    shown = "".join(f'<figure class="example">{marked_pair(e)}<figcaption>{esc(n)}</figcaption></figure>'
                    for e, n in zip(examples, notes))
    body = ('<section class="card" id="rubric"><h2>How to rate one edit</h2><p>You see the OCR output (OUT) and '
            "the reference (REF). One edit is marked in both. Judge ONLY the marked edit, as a reader of OUT, who "
            "never sees REF, would experience it: how much damage does this edit do to what they take away?</p>"
            '<table><thead><tr><th class="num">level</th><th class="num">rating</th><th>meaning, with an example'
            f"</th></tr></thead><tbody>{rows}</tbody></table><p>{esc(LANGUAGE_NOTE)}</p><h3>How an edit is "
            f"shown</h3>{shown}<h3>Pairs</h3><p>Some items show two outputs of one reference, A and B: choose the "
            "one that damages a reader more, or \u201cequal\u201d.</p><p>Use \u201cskip\u201d to come back to an "
            "item later and \u201ccannot judge\u201d when you cannot read the text. You can close the page at any "
            'time: every answer is saved at once.</p><p><a href="/rate" id="start">start rating \u2192</a></p></section>')
    return page("Rubric", body, reader, csrf)
