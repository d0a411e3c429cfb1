"""The store key of a judged edit: the judge identity and the edit's content, not its place."""

from __future__ import annotations

import dataclasses
import hashlib

from helpers import make_ctx

from semcer.alignment.context import EditContext, content_key
from semcer.store.keys import edit_key
from semcer.store.sqlite import JudgedEditStore

# A hand-written edit: Tấm -> Tám, with the marks ⟦ ⟧ around the edited unit.
CTX = EditContext("vi", "S", "ấ", "á", 1, 1, "Tấm Cám", "Tám Cám",
                  "T\u27e6\u1ea5\u27e7m C\u00e1m", "T\u27e6\u00e1\u27e7m C\u00e1m", "doc1-line7", "doc1")


def test_key_is_the_documented_hash():
    """sha256 of ``{identity}\\x1e{lang}\\x1f{op}\\x1f{marked_ref}\\x1f{marked_hyp}`` (UTF-8), as hex."""
    by_hand = hashlib.sha256("rubric:v1\x1evi\x1fS\x1fT\u27e6\u1ea5\u27e7m C\u00e1m\x1fT\u27e6\u00e1\u27e7m C\u00e1m"
                             .encode("utf-8")).hexdigest()
    assert by_hand == "67c2fa33ff10c7b1b122cdb8c26a67adb29ddc76c60374bf81cad06644bea7e9"  # pinned: stores depend on it
    assert JudgedEditStore.key("rubric:v1", CTX) == by_hand
    assert edit_key("rubric:v1", content_key("vi", "S", CTX.marked_ref, CTX.marked_hyp)) == by_hand


def test_key_is_content_not_place():
    ctx = make_ctx(3, line_id="doc1-line7", doc="doc1")
    key = JudgedEditStore.key("rubric:v1", ctx)
    expected = f"rubric:v1\x1e{ctx.lang}\x1f{ctx.op}\x1f{ctx.marked_ref}\x1f{ctx.marked_hyp}"
    assert key == hashlib.sha256(expected.encode("utf-8")).hexdigest()
    assert len(key) == 64
    elsewhere = dataclasses.replace(ctx, line_id="doc9-line1", doc="doc9", lang_source="script", ref_pos=0, hyp_pos=0)
    assert JudgedEditStore.key("rubric:v1", elsewhere) == key
    assert JudgedEditStore.key("rubric:v2", ctx) != key
    assert JudgedEditStore.key("rubric:v1", dataclasses.replace(ctx, lang="en")) != key
    assert JudgedEditStore.key("rubric:v1", dataclasses.replace(ctx, op="D")) != key
    assert JudgedEditStore.key("rubric:v1", dataclasses.replace(ctx, marked_hyp=ctx.marked_hyp + "x")) != key
    assert JudgedEditStore.key("rubric:v1", dataclasses.replace(ctx, marked_ref=ctx.marked_ref + "x")) != key
