"""The rating app: a Starlette application over one study file (``semcer study serve``).

Access: a reader signs in with their token (compared by its SHA-256; a missing token is 401, a wrong
one 403) and gets a session cookie (random, ``HttpOnly``, ``SameSite=Strict``; the file stores its
hash). Every page but the sign-in form and the static files needs the session (401 without it).
Every POST carries the session's CSRF token (the sign-in form a pre-session one, double-submitted
as a cookie) and, when the browser sends them, an ``Origin`` (or, without one, a ``Referer``) of the
app's own origin and a ``Sec-Fetch-Site`` that is not cross-site; anything else is 403. Every response carries a
Content-Security-Policy that allows scripts and styles only from the app's own /static files (none
inline), no frames, no form target but the app, plus ``nosniff``, ``no-store`` and ``Referrer-Policy:
same-origin`` (with ``no-referrer`` a browser sends ``Origin: null``, which the check refuses).
A ``Host`` outside ``allowed_hosts`` is refused (no DNS rebinding onto a loopback server).

A reader answers (or skips) only what the app has shown them: their next slot, or one they skipped;
a slot after it, or a repeat before its first showing is answered, is 409, and so is a revision of a
slot without an answer. They may go back to (and revise) any slot they answered.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from semcer.errors import SemcerError
from semcer.reports.html import STYLE
from semcer.study import pages
from semcer.study.db import SESSION_DAYS, StudyDB, StudyMissing, StudyNotWritable
from semcer.study.sampling import Slot

try:
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, RedirectResponse, Response
    from starlette.routing import Route
    from starlette.types import ASGIApp, Message, Receive, Scope, Send
except ImportError:  # pragma: no cover - the extra is checked by the command line first
    raise SemcerError('the reader-study app needs starlette and uvicorn: pip install "semcer[study]"') from None

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; "
       "base-uri 'none'; frame-ancestors 'none'")
HEADERS = {"content-security-policy": CSP, "x-content-type-options": "nosniff", "referrer-policy": "same-origin",
           "x-frame-options": "DENY", "cache-control": "no-store", "cross-origin-opener-policy": "same-origin"}
SESSION_COOKIE = "semcer_study_session"
PRE_COOKIE = "semcer_study_csrf"
MAX_BODY = 16_384
_log = logging.getLogger("semcer.study")


def _static(name: str) -> str:
    return resources.files("semcer.study").joinpath("static", name).read_text(encoding="utf-8")


class SecurityHeaders:
    """ASGI middleware: the security headers of the module documentation on every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + [
                    (k.encode(), v.encode()) for k, v in HEADERS.items() if k.encode() not in names]
            await send(message)

        await self.app(scope, receive, with_headers)


class Forbidden(Exception):
    """A refused request: its status and the reason shown."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


def _same(a: str | None, b: str | None) -> bool:
    return bool(a) and bool(b) and hmac.compare_digest(str(a), str(b))


def _referer_origin(referer: str) -> str:
    """The origin (scheme://host[:port]) of a Referer; "" for one that is not a URL."""
    try:
        parts = urlsplit(referer)
    except ValueError:
        return ""
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def _check_origin(request: Request) -> None:
    """403 when the browser says the request comes from another site: its Origin, or without one its
    Referer (a non-empty one), is not the app's own origin; or Sec-Fetch-Site says cross-site."""
    header, origin = "Origin", request.headers.get("origin")
    if origin is None and request.headers.get("referer"):
        header, origin = "Referer", _referer_origin(request.headers["referer"])
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    if origin is not None and origin != own:
        raise Forbidden(403, f"cross-origin request refused ({header} {origin or 'that is not a URL'})")
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        raise Forbidden(403, "cross-site request refused")


async def _form(request: Request) -> dict[str, str]:
    """The urlencoded form of a POST (bounded; one value per field)."""
    _check_origin(request)
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
        raise Forbidden(400, "expected a form (application/x-www-form-urlencoded)")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Forbidden(413, "request too large")
    try:
        parsed = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=20)
    except (UnicodeDecodeError, ValueError):
        raise Forbidden(400, "malformed form") from None
    return {k: v[0] for k, v in parsed.items()}


def _position(text: str) -> int:
    """A slot position from a form or a query (-1, no slot, for anything but a short decimal number)."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else -1


class StudyApp:
    """The endpoints over one study file."""

    def __init__(self, db: StudyDB, *, secure_cookies: bool = False) -> None:
        self.db = db
        self.secure = secure_cookies
        self.css = STYLE + "\n" + _static("study.css")
        self.js = _static("study.js")

    # -- sessions -------------------------------------------------------------------------------

    async def _session(self, request: Request) -> tuple[str, str]:
        """(reader, csrf) of the request's session; 401 without a valid one."""
        cookie = request.cookies.get(SESSION_COOKIE)
        found = await run_in_threadpool(self.db.session, cookie) if cookie else None
        if found is None:
            raise Forbidden(401, "sign in with your reader token")
        return found

    def _set_cookie(self, response: Response, name: str, value: str, max_age: int | None) -> None:
        response.set_cookie(name, value, max_age=max_age, httponly=True, samesite="strict", secure=self.secure, path="/")

    async def signin_form(self, request: Request, message: str = "", status: int = 200) -> Response:
        pre = request.cookies.get(PRE_COOKIE) or secrets.token_urlsafe(16)
        response = HTMLResponse(pages.signin(pre, message), status_code=status)
        self._set_cookie(response, PRE_COOKIE, pre, None)
        return response

    async def signin(self, request: Request) -> Response:
        form = await _form(request)
        if not _same(form.get("csrf"), request.cookies.get(PRE_COOKIE)):
            raise Forbidden(403, "the sign-in form has expired; reload the page")
        token = form.get("token", "").strip()
        if not token:
            return await self.signin_form(request, "give your reader token", 401)
        reader = await run_in_threadpool(self.db.reader_for_token, token)
        if reader is None:
            return await self.signin_form(request, "this token is not a reader's token of this study", 403)
        session, _ = await run_in_threadpool(self.db.new_session, reader)
        response = RedirectResponse("/rubric", status_code=303)
        self._set_cookie(response, SESSION_COOKIE, session, SESSION_DAYS * 86400)
        return response

    async def signout(self, request: Request) -> Response:
        _, csrf = await self._session(request)
        form = await _form(request)
        if not _same(form.get("csrf"), csrf):
            raise Forbidden(403, "missing or wrong CSRF token")
        await run_in_threadpool(self.db.end_session, request.cookies[SESSION_COOKIE])
        response = RedirectResponse("/signin", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    # -- pages ------------------------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        await self._session(request)
        return RedirectResponse("/rate", status_code=303)

    async def rubric(self, request: Request) -> Response:
        reader, csrf = await self._session(request)
        return HTMLResponse(pages.rubric_page(reader, csrf))

    async def rate_form(self, request: Request) -> Response:
        reader, csrf = await self._session(request)
        text, status = await run_in_threadpool(self._rate_html, reader, csrf, request.query_params.get("pos"))
        return HTMLResponse(text, status_code=status)

    def _rate_html(self, reader: str, csrf: str, pos_text: str | None) -> tuple[str, int]:
        progress = {p.reader: p for p in self.db.progress()}[reader]
        if pos_text is not None:
            pos = _position(pos_text)
            found_at = self.db.slot_state(reader, pos)
            if found_at is None:
                raise Forbidden(404, "no such item in your list")
            slot, state = found_at
            if state == "later":
                return pages.later_page(reader, csrf, pos), 409
        else:
            found = self.db.next_slot(reader)
            if found is None:
                last = self.db.last_answered(reader)
                return pages.done_page(reader, csrf, progress.slots, progress.slots - 1 if last is None else last), 200
            pos, slot = found
        item = self.db.item(slot.item)
        return pages.rate_page(reader, csrf, item, pos, progress.done, progress.slots, self.db.rating(reader, slot)), 200

    async def rate(self, request: Request) -> Response:
        reader, csrf = await self._session(request)
        form = await _form(request)
        if not _same(form.get("csrf"), csrf):
            raise Forbidden(403, "missing or wrong CSRF token")
        await run_in_threadpool(self._store, reader, form)
        return RedirectResponse("/rate", status_code=303)

    def _answerable(self, reader: str, form: dict[str, str], revise: bool) -> Slot:
        """The slot the form answers; 400 for none of the reader's, 409 for one not shown to them yet
        or, with ``revise``, one they have not answered."""
        found = self.db.slot_state(reader, _position(form.get("pos", "")))
        if found is None:
            raise Forbidden(400, "the form names no item of your list")
        slot, state = found
        if state == "later":
            raise Forbidden(409, "this item is not yet shown to you: answer the items before it first (rate goes to "
                                 "your next item); nothing was recorded")
        if revise and state != "answered":
            raise Forbidden(409, "this item has no answer of yours to change; nothing was recorded")
        return slot

    def _store(self, reader: str, form: dict[str, str]) -> None:
        revise = form.get("revise") == "1"
        slot = self._answerable(reader, form, revise)
        kind = self.db.item(slot.item).kind
        action = form.get("action")
        if action == "skip":
            self.db.skip(reader, slot)
        elif action == "cannot":
            self.db.rate(reader, slot, verdict="cannot_judge", revise=revise)
        elif kind == "edit" and form.get("level", "") in ("0", "1", "2", "3", "4"):
            self.db.rate(reader, slot, level=int(form["level"]), revise=revise)
        elif kind == "pair" and form.get("choice") in ("a", "b", "equal"):
            self.db.rate(reader, slot, choice=form["choice"], revise=revise)
        else:
            raise Forbidden(400, "the form holds no answer (a level 0-4, a choice a / b / equal, skip or cannot judge)")

    async def css_file(self, request: Request) -> Response:
        return Response(self.css, media_type="text/css; charset=utf-8")

    async def js_file(self, request: Request) -> Response:
        return Response(self.js, media_type="text/javascript; charset=utf-8")

    async def favicon(self, request: Request) -> Response:
        return Response(status_code=204)  # no icon (a browser asks for one; a 404 would be noise)


def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Forbidden)
    if exc.status == 401 and request.method == "GET":
        pre = request.cookies.get(PRE_COOKIE) or secrets.token_urlsafe(16)
        response = HTMLResponse(pages.signin(pre, str(exc)), status_code=401)
        response.set_cookie(PRE_COOKIE, pre, httponly=True, samesite="strict", path="/")
        return response
    return HTMLResponse(pages.page("Refused", f'<p class="error" role="alert">{pages.esc(exc)}</p>'),
                        status_code=exc.status)


def _damaged(request: Request, exc: Exception) -> Response:
    """A study file damaged since the app started (an item or a rating the app cannot read): a page
    that says so, the whole message in the server's log, never a traceback or the file's path."""
    _log.error("%s", exc)
    body = ('<p class="error" role="alert">The study file cannot be read (it is damaged); tell whoever runs the '
            "study.</p>")
    return HTMLResponse(pages.page("Cannot read the study", body), status_code=500)


def _unavailable(request: Request, exc: Exception) -> Response:
    """The study file gone (moved or deleted) or not writable while serving: a page that says which,
    and that nothing of this request was recorded; the whole message in the server's log."""
    _log.error("%s", exc)
    answering = request.method == "POST" and request.url.path == "/rate"
    lost = "your answer was not recorded" if answering else "nothing was recorded"
    if isinstance(exc, StudyMissing):
        title = "The study file is missing"
        why = (f"The study file is missing (moved or deleted), so {lost}. The answers you gave before are in "
               "that file; once it is back you can carry on.")
    else:
        title = "Cannot write the study"
        why = f"The study file cannot be written, so {lost}."
    body = f'<p class="error" role="alert">{pages.esc(why)} Tell whoever runs the study.</p>'
    return HTMLResponse(pages.page(title, body), status_code=503)


def create_app(db: StudyDB, *, allowed_hosts: list[str] | None = None, secure_cookies: bool = False) -> Any:
    """The ASGI application over the study ``db``; ``allowed_hosts`` (e.g. ``["127.0.0.1", "localhost"]``)
    refuses any other ``Host`` header. Every item and rating is read once here, so that a damaged
    study file is one :class:`~semcer.errors.InputError` before the app serves anything."""
    db.items()
    db.ratings()
    s = StudyApp(db, secure_cookies=secure_cookies)
    routes = [
        Route("/", s.home), Route("/signin", s.signin_form, methods=["GET"]), Route("/signin", s.signin, methods=["POST"]),
        Route("/signout", s.signout, methods=["POST"]), Route("/rubric", s.rubric), Route("/rate", s.rate_form, methods=["GET"]),
        Route("/rate", s.rate, methods=["POST"]), Route("/static/study.css", s.css_file), Route("/static/study.js", s.js_file),
        Route("/favicon.ico", s.favicon),
    ]
    middleware = [Middleware(SecurityHeaders)]
    if allowed_hosts:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts))
    handlers = {Forbidden: _refused, StudyMissing: _unavailable, StudyNotWritable: _unavailable, SemcerError: _damaged}
    return Starlette(routes=routes, middleware=middleware, exception_handlers=handlers)
