"""The study file moved, deleted or not writable, against a real `semcer study serve`: the app never
creates a study file in the place of a missing one, says which of the two it is (page and log), and
records nothing it cannot write; serve refuses a study it cannot write before it listens."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from helpers import read_only
from servers import Server, free_port
from studyhelpers import write_edits

from semcer.study.create import create_study, plan
from semcer.study.db import StudyDB, StudyMissing

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")


@pytest.fixture
def study(tmp_path):
    folder = tmp_path / "study"
    folder.mkdir()
    edits = write_edits(tmp_path / "edits.jsonl")
    tokens = create_study(folder / "s.study", plan([str(edits)], [], None, None, 0, 1), ["ana"])
    return folder / "s.study", tokens["ana"]


def _csrf(text: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', text).group(1)


def _signed_in(url: str, token: str) -> httpx.Client:
    c = httpx.Client(base_url=url, timeout=30, headers={"origin": url})
    r = c.post("/signin", data={"csrf": _csrf(c.get("/signin").text), "token": token})
    assert r.status_code == 303, r.text
    return c


def _answer(c: httpx.Client, level: str = "2") -> httpx.Response:
    page = c.get("/rate")
    assert page.status_code == 200, page.text
    pos = re.search(r'name="pos" value="(\d+)"', page.text).group(1)
    return c.post("/rate", data={"csrf": _csrf(page.text), "pos": pos, "level": level})


def _log(server: Server) -> str:
    server.stop()
    return server.proc.stderr.read() if server.proc and server.proc.stderr else ""



@pytest.mark.parametrize("how", ["moved", "deleted"])
def test_a_study_file_gone_while_serving_is_never_recreated(study, tmp_path, how):
    path, token = study
    server = Server(path).start()
    try:
        c = _signed_in(server.url, token)
        assert _answer(c, "3").status_code == 303
        moved = tmp_path / "elsewhere.study"
        if how == "moved":
            path.rename(moved)
        else:
            path.unlink()
        page = c.get("/rate")
        assert page.status_code == 503 and "The study file is missing (moved or deleted)" in page.text
        assert "damaged" not in page.text and str(path) not in page.text
        post = c.post("/rate", data={"csrf": "x", "pos": "1", "level": "1"})
        assert post.status_code == 503 and "your answer was not recorded" in post.text
        assert sorted(p.name for p in path.parent.iterdir()) == []  # no empty study (nor -wal, -shm) in its place
        if how == "moved":  # every answer accepted was committed to the file that moved
            assert [(r.reader, r.level) for r in StudyDB(moved).ratings()] == [("ana", 3)]
            moved.rename(path)
            assert _answer(c, "1").status_code == 303  # put back: the app carries on, the session too
            assert sorted(r.level for r in StudyDB(path).ratings()) == [1, 3]
    finally:
        log = _log(server)
    assert f"{path}: the study file is gone (moved or deleted" in log
    assert "no such table" not in log and "Traceback" not in log


def test_an_answer_the_file_refuses_is_not_recorded_and_says_why(study):
    path, token = study
    server = Server(path).start()
    try:
        c = _signed_in(server.url, token)
        with read_only(path):
            r = _answer(c)
            assert r.status_code == 503
            assert "The study file cannot be written, so your answer was not recorded" in r.text
            assert "damaged" not in r.text
            signin = httpx.post(server.url + "/signin", data={"csrf": "p", "token": token}, cookies={
                "semcer_study_csrf": "p"})
            assert signin.status_code == 503 and "so nothing was recorded" in signin.text
        assert StudyDB(path).ratings() == []
        assert _answer(c).status_code == 303  # writable again: the same form is taken
        assert len(StudyDB(path).ratings()) == 1
    finally:
        log = _log(server)
    assert f"{path}: the study cannot be written (the file is read-only to this process)" in log


@pytest.mark.parametrize("which", ["file", "folder"])
def test_serve_refuses_a_study_it_cannot_write_before_listening(study, which):
    path, _ = study
    port, before = free_port(), path.read_bytes()
    with read_only(path if which == "file" else path.parent):
        run = subprocess.run([sys.executable, "-m", "semcer", "study", "serve", str(path), "--port", str(port)],
                             capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "serving" not in run.stdout
    lines = run.stderr.strip().splitlines()
    why = "the file is read-only to this process" if which == "file" else "its folder is read-only to this process"
    assert lines == [f"semcer: error: {path}: the study cannot be written ({why}); semcer writes the file and creates "
                     "s.study-wal and s.study-shm beside it: make the file and its folder writable (and not "
                     "immutable: lsattr, chattr -i)"], lines
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["s.study"]  # no -wal or -shm left beside it


def test_study_db_opens_only_an_existing_file(study, tmp_path):
    path, _ = study
    db = StudyDB(path)
    path.unlink()
    with pytest.raises(StudyMissing, match="the study file is gone"):
        db.readers()
    assert not path.exists()
