"""HTTP under the ASGI server: each request runs Django's synchronous handling in one worker thread.

Django's own ``ASGIHandler`` runs a synchronous project's middleware in async mode: every
middleware's ``process_request``/``process_response`` hops to the one thread-sensitive thread
and back (some twenty hops a request), and all requests of a process queue for that thread, so
one request waiting on a row lock holds up the rest. Here the request is read on the event loop,
then middleware, view and the end-of-request signals run start to finish in one hop to a pool of
``WEB_THREADS`` threads, and the response is sent from the loop: on this 2-core machine
``/healthz`` went from 790 to 2,500-3,000 requests/s (bench/README.md). Each thread keeps its own
database connection for the request (Django's are per thread) and hands it back to the pool at
``request_finished``, in that same thread.

The balancer's health check (``/healthz``) is answered in a thread of its own, before any middleware: it must
answer within the check's 2 s (``deploy/haproxy.cfg``), and with the database away every request thread waits
its pool's timeout (10 s) for a connection: queued behind them, the check timed out on every host and the
balancer closed every socket. Through the middleware, a session cookie (anyone's, any key) had the check read the
session from the database, with that same wait.

Streaming responses (WhiteNoise's static files) are read whole in the thread: the project streams
nothing large.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import IO

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers import base
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import HttpResponseBase
from django.urls import set_script_prefix

from kernel.health import health_answer

HEALTH_CHECK_PATH = "/healthz"


class ThreadedASGIHandler(ASGIHandler):
    """Django's HTTP handling for an ASGI server, the synchronous stack run in one worker thread."""

    def __init__(self, *, threads: int) -> None:
        base.BaseHandler.__init__(self)  # not ASGIHandler's: its middleware chain is the async one
        self.load_middleware(is_async=False)
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="http")
        self.health_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="healthz")

    async def __call__(self, scope: dict, receive, send) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django serves HTTP here, not {scope['type']}")
        if scope["path"] == HEALTH_CHECK_PATH:
            await self.health_check(scope, send)
            return
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        try:
            respond = sync_to_async(self.respond, thread_sensitive=False, executor=self.executor)
            response, body = await respond(scope, body_file)
        finally:
            body_file.close()
        await send({"type": "http.response.start", "status": response.status_code, "headers": _headers(response)})
        await send({"type": "http.response.body", "body": body})

    async def health_check(self, scope: dict, send) -> None:
        """``/healthz``, whatever its method, headers or body: no session, no user, no middleware."""
        server = scope.get("server") or ("unknown", 0)
        answer = sync_to_async(health_answer, thread_sensitive=False, executor=self.health_executor)
        status, body = await answer(host=f"{server[0]}:{server[1]}")
        headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": json.dumps(body).encode()})

    def respond(self, scope: dict, body_file: IO[bytes]) -> tuple[HttpResponseBase, bytes]:
        """In a worker thread: signals, middleware and view, the whole body, then ``close()`` (which
        sends ``request_finished``: the thread's database connection goes back to the pool)."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
            response._handler_class = self.__class__
        try:
            body = b"".join(response) if response.streaming else response.content
        finally:
            response.close()
        return response, body


def _headers(response: HttpResponseBase) -> list[tuple[bytes, bytes]]:
    """The response's headers and cookies as ASGI wants them (as Django's ``ASGIHandler`` sends them)."""
    headers = [
        (header.encode("ascii") if isinstance(header, str) else bytes(header), value.encode("latin1"))
        for header, value in response.items()
    ]
    headers += [
        (b"Set-Cookie", cookie.output(header="").encode("ascii").strip()) for cookie in response.cookies.values()
    ]
    return headers


def http_application() -> ThreadedASGIHandler:
    return ThreadedASGIHandler(threads=settings.WEB_THREADS)
