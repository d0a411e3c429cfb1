"""The strip-markdown step: each documented rule by hand, determinism, and a Markdown page scored against its
plain reference (CER with the step = CER of the plain output; without it much higher)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import semcer
from semcer.text.markup import strip_markdown
from semcer.text.policy import PRESETS, STEPS, get_policy


@pytest.mark.parametrize(("markdown", "plain"), [
    # headings
    ("# Title", "Title"), ("### Title ###", "Title"), ("#hashtag", "#hashtag"), ("Heading\n=====\nbody", "Heading\nbody"),
    # emphasis
    ("**bold** *it* _em_ __strong__ ~~gone~~", "bold it em strong gone"), ("***both***", "both"),
    ("snake_case_name", "snake_case_name"), ("2 * 3 * 4", "2 * 3 * 4"), ("a*b", "a*b"), ("* not a list*", "not a list*"),
    # code
    ("use `x = *y*` here", "use x = *y* here"), ("``a ` b``", "a ` b"), ("` padded `", "padded"),
    ("```python\nx = **y**\n# not a heading\n```\nafter", "x = **y**\n# not a heading\nafter"),
    ("~~~\ncode\n~~~", "code"),
    # links, images
    ("[text](http://x.org)", "text"), ('![alt](a.png "title")', "alt"), ("[![logo](l.png)](http://x)", "logo"),
    ("[text][ref]\n[ref]: http://x.org", "text"), ("<https://ocr-d.de/en>", "https://ocr-d.de/en"),
    # lists, quotes
    ("- one\n* two\n+ three\n1. four\n10) five", "one\ntwo\nthree\nfour\nfive"), ("- [x] done\n- [ ] open", "done\nopen"),
    ("  - indented", "indented"), ("> quoted\n> > nested", "quoted\nnested"), ("> # heading in a quote", "heading in a quote"),
    # tables
    ("| A | B |\n|---|:--:|\n| 1 | 2 |", "A B\n1 2"), ("A | B\n--- | ---\n1 | 2", "A B\n1 2"),
    ("| a \\| b | c |", "a | b c"), ("| x |\n\nnot | a row", "x\n\nnot | a row"),
    # LaTeX
    ("$x^2$ and $$E=mc^2$$", "x^2 and E=mc^2"), ("\\(a+b\\) \\[c\\]", "a+b c"), ("costs $5 and $10", "costs $5 and $10"),
    ("$$\n\\frac{a}{b}\n$$", "\\frac{a}{b}"), ("$a$1", "$a$1"),
    # HTML
    ("a<br>b<br/>c", "a\nb\nc"), ("<b>bold</b> <span class='x'>s</span>", "bold s"), ("<!-- note -->text", "text"),
    ("<table>\n<tr><th>A</th><th>B</th></tr>\n<tr><td>1</td> <td>2<br>3</td></tr>\n</table>", "A B\n1 2\n3"),
    ("<table><tr><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table>", "1 2\n3 4"),
    ("&amp; &eacute; &#233; &#xE9; &copy", "& é é é &copy"),
    # escapes, breaks, untouched text
    ("\\*literal\\* \\# \\_x\\_", "*literal* # _x_"), ("\\[x\\]", "x"),  # \\[ \\] is read as LaTeX first
    ("a\n\n---\n\nb", "a\n\n\nb"), ("***", ""),
    ("plain text, nothing to do.", "plain text, nothing to do."), ("", ""), ("  keep  spaces  ", "  keep  spaces  "),
    ("a < b > c", "a < b > c"),
])
def test_rules(markdown, plain):
    assert strip_markdown(markdown) == plain


def test_text_holding_a_placeholder_character_is_still_processed_without_protection():
    assert strip_markdown("\ufdd0 **b** `*c*`") == "\ufdd0 b c"  # the code span is then not protected


@given(st.text(alphabet="ab #*_`|-[]()!<>$\\\n:.1", max_size=40))
def test_deterministic_and_never_adds_letters(text):
    out = strip_markdown(text)
    assert out == strip_markdown(text)
    assert out.count("a") <= text.count("a") and out.count("b") <= text.count("b")


def test_registered_as_a_non_local_step_and_in_the_markdown_preset():
    fn, _, local = STEPS["strip-markdown"]
    assert fn is strip_markdown and local is False
    assert PRESETS["markdown"][0] == ("strip-markdown", "nfc")
    assert get_policy("strip-markdown+nfc")("## Titel") == "Titel"


REFERENCE = """Annual report 2024
Revenue grew by 12 percent.
Region Sales Growth
North 1,200 5 %
South 950 -2 %
Outlook
We expect steady demand."""

PLAIN_OUTPUT = """Annual report 2O24
Revenue grew by 12 percent
Region Sales Growth
North 1,200 5 %
South 950 -2 %
Outlook
We expect steady dernand."""

MARKDOWN_OUTPUT = """# Annual report 2O24

**Revenue** grew by *12 percent*

| Region | Sales | Growth |
|--------|------:|-------:|
| North | 1,200 | 5 % |
| South | 950 | -2 % |

## Outlook

- We expect <b>steady</b> dernand."""


def test_a_markdown_page_scores_like_its_plain_output():
    plain = semcer.cer(REFERENCE, PLAIN_OUTPUT)
    assert plain == pytest.approx(4 / len(REFERENCE))  # 0->O, a dropped full stop, m->rn (1 S + 1 I): 4 edits
    stripped = semcer.cer(REFERENCE, MARKDOWN_OUTPUT, policy="markdown")
    without = semcer.cer(REFERENCE, MARKDOWN_OUTPUT)
    # what is left are the 4 blank lines Markdown needs between blocks: 4 inserted line breaks, one of which the
    # aligner pairs with the dropped full stop (a substitution instead of a deletion and an insertion): 4 + 4 - 1
    assert stripped == pytest.approx((4 + 4 - 1) / len(REFERENCE))
    assert without > 3 * stripped


def test_offsets_fall_back_where_markup_was_removed():
    assert semcer.align("Titel", "## Titel", policy="markdown").offsets is False
    plain = semcer.align("Titel", "Titol", policy="markdown")
    assert plain.offsets is True and plain.edits[0].hyp_span == (3, 4)
