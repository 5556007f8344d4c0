"""HTTP under the ASGI server (``kernel.http``): Django's synchronous stack, run whole in a worker thread."""

import asyncio
import json
import re
import threading

import pytest
from channels.testing import HttpCommunicator
from django.conf import settings
from django.core import signals
from django.http import HttpResponse, StreamingHttpResponse
from django.test import override_settings
from django.urls import path

from casino.asgi import application
from casino.players.views import healthz

pytestmark = pytest.mark.django_db(transaction=True)
# Channels' default of 1 s fails a sign-in POST (a password hash) on a loaded 2-core machine.
RESPONSE_SECONDS = 10


def http(method: str, path: str, body: bytes = b"", headers: tuple = ()) -> HttpCommunicator:
    return HttpCommunicator(application, method, path, body=body, headers=[(b"host", b"testserver"), *headers])


def headers_of(response: dict) -> dict[bytes, list[bytes]]:
    found: dict[bytes, list[bytes]] = {}
    for name, value in response["headers"]:
        found.setdefault(name.lower(), []).append(value)
    return found


async def test_a_request_is_answered_with_its_status_headers_and_body():
    response = await http("GET", "/accounts/login/").get_response(timeout=RESPONSE_SECONDS)
    assert response["status"] == 200
    assert b"<form" in response["body"]
    headers = headers_of(response)
    assert headers[b"content-type"] == [b"text/html; charset=utf-8"]
    assert headers[b"x-frame-options"] == [b"DENY"]  # the middleware ran
    assert b"content-security-policy" in headers


async def test_cookies_are_sent_as_set_cookie_headers():
    response = await http("GET", "/accounts/login/").get_response(timeout=RESPONSE_SECONDS)
    assert response["status"] == 200
    cookies = headers_of(response)[b"set-cookie"]
    assert any(cookie.startswith(b"csrftoken=") for cookie in cookies)
    assert b"<form" in response["body"]


async def test_a_post_body_reaches_the_view():
    page = await http("GET", "/accounts/login/").get_response(timeout=RESPONSE_SECONDS)
    cookie = next(c for c in headers_of(page)[b"set-cookie"] if c.startswith(b"csrftoken=")).split(b";")[0]
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page["body"]).group(1)
    body = b"csrfmiddlewaretoken=" + token + b"&username=nobody&password=wrong"
    form = ((b"content-type", b"application/x-www-form-urlencoded"), (b"cookie", cookie))
    response = await http("POST", "/accounts/login/", body, headers=form).get_response(timeout=RESPONSE_SECONDS)
    assert response["status"] == 200  # the form again, with its error: the fields were read
    assert b"correct username and password" in response["body"]


async def test_the_request_starts_and_finishes_in_the_worker_thread_that_serves_it():
    """``request_finished`` hands the thread's database connection back: it must run in that thread."""
    seen: dict[str, int] = {}

    def started(**kwargs) -> None:
        seen["started"] = threading.get_ident()

    def finished(**kwargs) -> None:
        seen["finished"] = threading.get_ident()

    signals.request_started.connect(started)
    signals.request_finished.connect(finished)
    try:
        response = await http("GET", "/accounts/login/").get_response(timeout=RESPONSE_SECONDS)
    finally:
        signals.request_started.disconnect(started)
        signals.request_finished.disconnect(finished)
    assert response["status"] == 200
    assert seen["started"] == seen["finished"] != threading.get_ident()


def streamed(request):
    return StreamingHttpResponse((f"part {number};".encode() for number in range(3)), content_type="text/plain")


busy = threading.Semaphore(0)
released = threading.Event()


def waiting(request):
    """A request holding its thread, as each does with the database away (the pool's 10 s for a connection)."""
    busy.release()
    released.wait(RESPONSE_SECONDS)
    return HttpResponse("done")


urlpatterns = [path("streamed/", streamed), path("waiting/", waiting), path("healthz", healthz)]


@override_settings(ROOT_URLCONF=__name__)
async def test_a_streaming_response_is_read_whole_in_the_thread_and_sent():
    response = await http("GET", "/streamed/").get_response(timeout=RESPONSE_SECONDS)
    assert response["status"] == 200
    assert response["body"] == b"part 0;part 1;part 2;"


@override_settings(ROOT_URLCONF=__name__)
async def test_the_health_check_is_answered_while_every_request_thread_waits():
    """The balancer gives the check 2 s: queued behind requests waiting for the database, it failed on every
    host at once and the balancer closed every socket."""
    requests = [
        asyncio.create_task(http("GET", "/waiting/").get_response(timeout=RESPONSE_SECONDS))
        for _ in range(settings.WEB_THREADS)
    ]
    try:
        for _ in range(settings.WEB_THREADS):
            assert await asyncio.to_thread(busy.acquire, timeout=RESPONSE_SECONDS)  # every request thread taken
        response = await http("GET", "/healthz").get_response(timeout=2)
        assert response["status"] == 200
    finally:
        released.set()
    assert [response["body"] for response in await asyncio.gather(*requests)] == [b"done"] * settings.WEB_THREADS


async def test_the_health_check_reads_no_session_and_runs_no_middleware(monkeypatch):
    """A cookie (anyone's, any key) on /healthz: read through the middleware, the session would be looked up in
    the database, with the pool's 10 s wait while it is away, and the balancer's own check queued behind it."""
    from django.contrib.sessions.backends.base import SessionBase

    looked_up = []
    monkeypatch.setattr(SessionBase, "load", lambda self: looked_up.append(self.session_key) or {})
    cookie = (b"cookie", f"{settings.SESSION_COOKIE_NAME}={'x' * 32}".encode())
    response = await http("POST", "/healthz", body=b"ignored", headers=(cookie,)).get_response(timeout=RESPONSE_SECONDS)
    assert response["status"] == 200 and json.loads(response["body"])["status"] == "ok"
    assert looked_up == []
    assert headers_of(response)[b"cache-control"] == [b"no-store"]
    assert b"set-cookie" not in headers_of(response)
