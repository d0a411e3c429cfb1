"""The rating app through Starlette's TestClient: access, CSRF, escaping, headers, privacy."""

from __future__ import annotations

import re

import pytest
from studyhelpers import write_edits

from semcer.study.create import create_study, plan
from semcer.study.db import StudyDB
from semcer.study.web import create_app

starlette = pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402


@pytest.fixture
def app(tmp_path):
    edits = write_edits(tmp_path / "edits.jsonl")
    tokens = create_study(tmp_path / "s.study", plan([str(edits)], [], None, None, 0, 1), ["ana", "ben"])
    db = StudyDB(tmp_path / "s.study")
    return db, tokens, create_app(db)


def _csrf(text: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', text).group(1)


def signed_in(app, reader):
    _, tokens, asgi = app
    c = TestClient(asgi)
    pre = _csrf(c.get("/signin").text)
    r = c.post("/signin", data={"csrf": pre, "token": tokens[reader]}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/rubric"
    return c


def test_pages_need_a_token(app):
    db, tokens, asgi = app
    c = TestClient(asgi)
    for path in ("/rate", "/rubric", "/"):
        assert c.get(path).status_code == 401
    pre = _csrf(c.get("/signin").text)
    assert c.post("/signin", data={"csrf": pre, "token": ""}).status_code == 401
    assert c.post("/signin", data={"csrf": pre, "token": "wrong-token"}).status_code == 403
    assert c.post("/signin", data={"csrf": pre, "token": tokens["ana"][:-1]}).status_code == 403
    assert c.get("/rate").status_code == 401
    c.cookies.set("semcer_study_session", "forged")
    assert c.get("/rate").status_code == 401
    r = c.post("/rate", data={"csrf": "x", "pos": "0", "level": "1"})
    assert r.status_code == 401
    assert db.ratings() == []


def test_signin_without_its_csrf_is_refused(app):
    _, tokens, asgi = app
    c = TestClient(asgi)
    c.get("/signin")
    assert c.post("/signin", data={"token": tokens["ana"]}).status_code == 403
    assert c.post("/signin", data={"csrf": "guess", "token": tokens["ana"]}).status_code == 403


def test_rating_needs_csrf_and_same_origin(app):
    db, _, _ = app
    c = signed_in(app, "ana")
    page = c.get("/rate").text
    csrf, pos = _csrf(page), re.search(r'name="pos" value="(\d+)"', page).group(1)
    assert c.post("/rate", data={"pos": pos, "level": "2"}).status_code == 403
    assert c.post("/rate", data={"csrf": csrf + "x", "pos": pos, "level": "2"}).status_code == 403
    assert c.post("/rate", data={"csrf": csrf, "pos": pos, "level": "2"},
                  headers={"origin": "http://evil.example"}).status_code == 403
    assert c.post("/rate", data={"csrf": csrf, "pos": pos, "level": "2"},
                  headers={"sec-fetch-site": "cross-site"}).status_code == 403
    assert c.post("/rate", data={"csrf": csrf, "pos": pos, "level": "9"}).status_code == 400
    assert db.ratings() == []
    r = c.post("/rate", data={"csrf": csrf, "pos": pos, "level": "2"}, headers={"origin": "http://testserver"},
               follow_redirects=False)
    assert r.status_code == 303
    assert [(x.reader, x.level) for x in db.ratings()] == [("ana", 2)]


def test_headers_on_every_response(app):
    c = signed_in(app, "ana")
    for path in ("/signin", "/rate", "/rubric", "/static/study.js", "/static/study.css"):
        r = c.get(path)
        assert r.status_code == 200, path
        csp = r.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp and "'unsafe-inline'" not in csp
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["cache-control"] == "no-store"
    cookie = next(v for k, v in c.get("/signin").headers.multi_items() if k == "set-cookie").lower()
    assert "httponly" in cookie and "samesite=strict" in cookie


def _page_of(c, db, reader, edit_id):
    """The page of an item's first showing, reached as the reader reaches it: the slots before it answered."""
    pos = next(p for p, (item, rep) in enumerate(_slots(db, reader)) if item == edit_id and rep == 0)
    while (found := db.next_slot(reader))[0] != pos:
        db.rate(reader, found[1], level=1)
    page = c.get(f"/rate?pos={pos}")
    assert page.status_code == 200
    return page.text


def _slots(db, reader):
    import sqlite3

    rows = sqlite3.connect(db.path).execute("SELECT item, rep FROM slots WHERE reader = ? ORDER BY pos", (reader,))
    return list(rows)


def test_markup_in_ocr_text_is_inert(app):
    db, _, _ = app
    c = signed_in(app, "ana")
    page = _page_of(c, db, "ana", "en-4:S26,26")
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    page = _page_of(c, db, "ana", "en-6:S3,3")
    assert "<img" not in page and "&lt;img src=x onerror=alert(2)&gt;" in page
    assert "&quot;" in page
    # no script in the page but the static one
    assert re.findall(r"<script[^>]*>", page) == ['<script src="/static/study.js" defer>']
    # the output first, then the reference, the edited unit marked in both
    out = page.index('<span class="lab">out</span>')
    ref = page.index('<span class="lab">ref</span>')
    assert out < ref and "<mark>c</mark>" in page[out:ref] and "<mark>b</mark>" in page[ref:]


def test_reader_sees_no_scores_nor_others_answers(app):
    db, _, _ = app
    ben = signed_in(app, "ben")
    page = ben.get("/rate").text
    pos = re.search(r'name="pos" value="(\d+)"', page).group(1)
    ben.post("/rate", data={"csrf": _csrf(page), "pos": pos, "level": "3"})
    ana = signed_in(app, "ana")
    item = _slots(db, "ben")[int(pos)][0]
    text = _page_of(ana, db, "ana", item)
    assert 'aria-pressed="true"' not in text and "revise" not in text  # ben's answer is not ana's
    assert "severity" not in text.lower() and "0.9" not in text
    # ben reviewing his own answer sees it
    assert 'aria-pressed="true"' in ben.get(f"/rate?pos={pos}").text
    for pos in ("9999", "-1", "x", "9" * 40, "\u0663"):
        assert ana.get("/rate", params={"pos": pos}).status_code == 404
        assert ana.post("/rate", data={"csrf": _csrf(text), "pos": pos, "level": "1"}).status_code == 400


def test_revision_is_explicit(app):
    db, _, _ = app
    c = signed_in(app, "ana")
    page = c.get("/rate").text
    csrf, pos = _csrf(page), re.search(r'name="pos" value="(\d+)"', page).group(1)
    c.post("/rate", data={"csrf": csrf, "pos": pos, "level": "1"})
    c.post("/rate", data={"csrf": csrf, "pos": pos, "level": "4"})  # a double submit: ignored
    assert [(r.level, r.revisions) for r in db.ratings()] == [(1, 0)]
    c.post("/rate", data={"csrf": csrf, "pos": pos, "level": "4", "revise": "1"})
    assert [(r.level, r.revisions) for r in db.ratings()] == [(4, 1)]


def test_host_header_checked(tmp_path, app):
    db, _, _ = app
    c = TestClient(create_app(db, allowed_hosts=["127.0.0.1", "localhost"]), base_url="http://attacker.example")
    assert c.get("/signin").status_code == 400
    assert TestClient(create_app(db, allowed_hosts=["127.0.0.1"]), base_url="http://127.0.0.1:8765").get(
        "/signin").status_code == 200


def test_a_foreign_referer_without_origin_is_refused(app):
    db, _, _ = app
    c = signed_in(app, "ana")
    page = c.get("/rate").text
    form = {"csrf": _csrf(page), "pos": re.search(r'name="pos" value="(\d+)"', page).group(1), "level": "2"}
    for referer in ("http://evil.example/rate", "http://testserver.evil.example/", "https://testserver/rate",
                    "not a url", "http://[::1/"):
        r = c.post("/rate", data=form, headers={"referer": referer})
        assert r.status_code == 403 and "cross-origin request refused (Referer" in r.text, referer
    # the Origin decides when both are sent, as before
    assert c.post("/rate", data=form, headers={"origin": "http://evil.example", "referer": "http://testserver/"}
                  ).status_code == 403
    assert db.ratings() == []
    r = c.post("/rate", data=form, headers={"referer": "http://testserver/rate?pos=0"}, follow_redirects=False)
    assert r.status_code == 303 and [x.level for x in db.ratings()] == [2]


def _repeat_positions(db, reader):
    """(first showing, repeat) positions of the reader's repeated item."""
    slots = _slots(db, reader)
    repeat = next(p for p, (_, rep) in enumerate(slots) if rep == 1)
    return slots.index((slots[repeat][0], 0)), repeat


def test_only_shown_slots_are_answered(app):
    db, _, _ = app
    c = signed_in(app, "ana")
    first, repeat = _repeat_positions(db, "ana")
    csrf = _csrf(c.get("/rate").text)

    def post(pos, **form):
        return c.post("/rate", data={"csrf": csrf, "pos": str(pos), **form}, follow_redirects=False)

    last = len(_slots(db, "ana")) - 1
    for form in ({"level": "2"}, {"action": "skip"}, {"action": "cannot"}, {"level": "2", "revise": "1"}):
        r = post(last, **form)  # a slot after the next one
        assert r.status_code == 409 and "not yet shown to you" in r.text and "nothing was recorded" in r.text, form
    r = post(0, level="2", revise="1")  # the next slot, with no answer to revise
    assert r.status_code == 409 and "no answer of yours to change" in r.text
    assert db.ratings() == [] and db.progress()[0].skipped == 0
    for pos in range(first):
        assert post(pos, level="1").status_code == 303
    assert post(first, action="skip").status_code == 303  # the first showing skipped: its repeat waits for it
    while (found := db.next_slot("ana"))[0] < repeat:
        assert post(found[0], level="1").status_code == 303
    assert db.next_slot("ana")[0] > repeat
    for form in ({"level": "4"}, {"level": "4", "revise": "1"}, {"action": "skip"}):
        assert post(repeat, **form).status_code == 409, form
    page = c.get(f"/rate?pos={repeat}")
    assert page.status_code == 409 and "not yet shown to you" in page.text and 'id="rate-form"' not in page.text
    assert f'href="/rate?pos={repeat - 1}"' in page.text and 'id="next" href="/rate"' not in page.text
    assert '<a href="/rate" id="next">' in page.text
    assert not [r for r in db.ratings() if r.item == _slots(db, "ana")[repeat][0]]
    # the skipped first showing is still answerable; then its repeat is the next slot, and is answered once
    assert c.get(f"/rate?pos={first}").status_code == 200
    assert post(first, level="3").status_code == 303
    assert db.next_slot("ana")[0] == repeat and post(repeat, level="4").status_code == 303
    # answered slots are revised, also from far back
    assert post(0, level="3", revise="1").status_code == 303
    assert [(r.rep, r.level) for r in db.ratings() if r.item == _slots(db, "ana")[repeat][0]] == [(0, 3), (1, 4)]
    assert sum(r.revisions for r in db.ratings()) == 1
