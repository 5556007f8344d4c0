"""One webhook POST: to the address that was checked, within one deadline, reading a bounded answer.

The host name is resolved once. Every address it resolves to must be public (unless
``WEBHOOK_ALLOW_PRIVATE_TARGETS``), and the connection goes to one of those addresses: never to the answer
of a second lookup, which a partner's DNS could point at the platform's own network (DNS rebinding).
TLS sends the host name (SNI) and verifies the certificate for it; ``Host`` is the host name.

Connect, TLS handshake, request and answer share one deadline (``ATTEMPT_DEADLINE_SECONDS``), and only
the status line and headers (capped) and an excerpt of the body are read: a receiver that trickles bytes
or streams forever is cut at the deadline and holds a worker no longer than that.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from django.conf import settings

ATTEMPT_DEADLINE_SECONDS = 10.0
RESOLVE_SECONDS = 5.0  # at most, of the attempt's deadline (at registration: alone)
MAX_HEAD_BYTES = 16 * 1024  # the status line and headers
RESPONSE_EXCERPT_BYTES = 500  # of a failed answer's body, for the delivery's record
MAX_BODY_BYTES = 16 * 1024  # of an answer's body (a wallet's JSON is a few hundred bytes)
_READ_SIZE = 4096
_PRINTABLE_ASCII = "".join(map(chr, range(0x21, 0x7F)))


class WebhookTargetRefused(ValueError):
    """The URL may not be posted to: not https, or a name that resolves to a non-public address."""


class _AnswerRefused(OSError):
    """The receiver's answer is not one we read: malformed, or headers beyond ``MAX_HEAD_BYTES``."""


@dataclass(frozen=True)
class WebhookTarget:
    url: str
    host: str
    port: int
    tls: bool
    addresses: list[tuple[socket.AddressFamily, tuple]]  # (family, socket address), each checked

    @property
    def request_target(self) -> str:
        """The path and query, ASCII: anything else (an IRI's letters) percent-encoded as UTF-8."""
        parts = urlsplit(self.url)
        return quote((parts.path or "/") + (f"?{parts.query}" if parts.query else ""), safe=_PRINTABLE_ASCII)

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == (443 if self.tls else 80) else f"{host}:{self.port}"


def _addresses_resolved(host: str, port: int, timeout: float) -> list:
    """``getaddrinfo`` within ``timeout`` seconds (libc gives it none: a partner's slow DNS server must not
    hold a worker). It runs in a thread of its own, left to finish alone if it overruns."""
    answer: dict = {}

    def resolve() -> None:
        try:
            answer["infos"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
        except (OSError, UnicodeError, ValueError) as error:
            answer["error"] = error

    thread = threading.Thread(target=resolve, name="webhook-dns", daemon=True)
    thread.start()
    thread.join(max(timeout, 0))
    if "error" in answer:
        raise answer["error"]
    if "infos" not in answer:
        raise TimeoutError(f"no answer from DNS within {timeout:g} s")
    return answer["infos"]


def webhook_target_resolve(url: str, *, timeout: float = RESOLVE_SECONDS) -> WebhookTarget:
    """Resolve the URL's host once, within ``timeout`` seconds; refuse it (SSRF) unless it is https and
    every address is public, both unless ``WEBHOOK_ALLOW_PRIVATE_TARGETS``."""
    allow_private = settings.WEBHOOK_ALLOW_PRIVATE_TARGETS
    parts = urlsplit(url)
    if parts.scheme != "https" and not (allow_private and parts.scheme == "http"):
        raise WebhookTargetRefused("a webhook URL must be https")
    if not parts.hostname or any(character.isspace() for character in url):
        raise WebhookTargetRefused("a webhook URL has a host name and no white space")
    try:
        host = (parts.hostname or "").encode("idna").decode("ascii")  # an international name as DNS has it
        port = parts.port or (443 if parts.scheme == "https" else 80)
        infos = _addresses_resolved(host, port, timeout)
    except (OSError, UnicodeError, ValueError) as error:
        raise WebhookTargetRefused(f"{parts.hostname} does not resolve: {error}") from None
    addresses = list(dict.fromkeys((family, address) for family, _, _, _, address in infos))
    for _, address in addresses if not allow_private else ():
        ip = ipaddress.ip_address(address[0].split("%", 1)[0])
        if not ip.is_global or ip.is_multicast:
            raise WebhookTargetRefused(f"{host} resolves to {ip}, which is not a public address")
    return WebhookTarget(url=url, host=host, port=port, tls=parts.scheme == "https", addresses=addresses)


def webhook_post(*, url: str, body: bytes, headers: dict[str, str]) -> tuple[int | None, str]:
    """The status code (None without an answer) and, unless 2xx, what went wrong. Redirects are not followed."""
    answer = partner_post(
        url=url, body=body, headers=headers, deadline_seconds=ATTEMPT_DEADLINE_SECONDS, success_body=False
    )
    if answer.error.startswith("TimeoutError"):
        return None, f"TimeoutError: no complete answer within the attempt's {ATTEMPT_DEADLINE_SECONDS:g} s"
    if answer.error or answer.status is None or 200 <= answer.status < 300:
        return answer.status, answer.error
    return answer.status, f"HTTP {answer.status} {answer.reason}: {answer.body[:RESPONSE_EXCERPT_BYTES]}".strip()


@dataclass(frozen=True)
class PartnerAnswer:
    """What a partner's server answered: its status, reason and body (up to ``MAX_BODY_BYTES``), or no
    answer (``status`` None) and why (``error``)."""

    status: int | None
    reason: str = ""
    body: str = ""
    error: str = ""


def partner_post(
    *, url: str, body: bytes, headers: dict[str, str], deadline_seconds: float, success_body: bool = True
) -> PartnerAnswer:
    """POST to a partner's server (a webhook receiver or a wallet), all within ``deadline_seconds``; a
    success's body is read whole (``success_body``) or not at all (a webhook needs only the status)."""
    deadline = time.monotonic() + deadline_seconds
    try:
        target = webhook_target_resolve(url, timeout=min(RESOLVE_SECONDS, deadline - time.monotonic()))
    except WebhookTargetRefused as error:
        return PartnerAnswer(None, error=f"refused: {error}")
    try:
        with _connected(target, deadline) as connection:
            _send(connection, _request(target, body, headers), deadline)
            status, reason, answer_body = _answer(connection, deadline, success_body=success_body)
    except TimeoutError:
        return PartnerAnswer(None, error=f"TimeoutError: no complete answer within {deadline_seconds:g} s")
    except OSError as error:  # refused, reset, TLS (certificate) errors, a malformed answer
        return PartnerAnswer(None, error=f"{type(error).__name__}: {error}")
    return PartnerAnswer(status, reason, answer_body)


def _remaining(deadline: float) -> float:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError
    return remaining


def _connected(target: WebhookTarget, deadline: float) -> socket.socket:
    """A connection to the first checked address that answers, wrapped in verified TLS for https."""
    error: OSError = OSError(f"{target.host} has no address")
    for family, address in target.addresses:
        connection = socket.socket(family, socket.SOCK_STREAM)
        try:
            connection.settimeout(_remaining(deadline))
            connection.connect(address)
            break
        except OSError as failed:
            connection.close()
            if isinstance(failed, TimeoutError):
                raise
            error = failed
    else:
        raise error
    if not target.tls:
        return connection
    try:
        secure = ssl.create_default_context().wrap_socket(
            connection, server_hostname=target.host, do_handshake_on_connect=False
        )
        secure.settimeout(_remaining(deadline))
        secure.do_handshake()  # one call, one timeout: CPython counts it down across the handshake's reads
    except BaseException:
        connection.close()
        raise
    return secure


def _request(target: WebhookTarget, body: bytes, headers: dict[str, str]) -> bytes:
    lines = [
        f"POST {target.request_target} HTTP/1.1",
        f"Host: {target.host_header}",
        *(f"{name}: {value}" for name, value in headers.items()),
        f"Content-Length: {len(body)}",
        "Connection: close",
    ]
    return "\r\n".join(lines).encode("latin-1") + b"\r\n\r\n" + body


def _send(connection: socket.socket, data: bytes, deadline: float) -> None:
    view = memoryview(data)
    while view:
        connection.settimeout(_remaining(deadline))
        view = view[connection.send(view) :]


def _answer(connection: socket.socket, deadline: float, *, success_body: bool) -> tuple[int, str, str]:
    """The status, its reason and the body, up to ``MAX_BODY_BYTES``: a success's whole (by its
    Content-Length, or to the end) if ``success_body``, a failure's as much as arrives in time."""
    received = bytearray()
    while b"\r\n\r\n" not in received:
        if len(received) > MAX_HEAD_BYTES:
            raise _AnswerRefused(f"the status line and headers exceed {MAX_HEAD_BYTES} bytes")
        chunk = _read(connection, deadline)
        if not chunk:
            break
        received += chunk
    head, _, rest = bytes(received).partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    version, _, status_and_reason = status_line.partition(" ")
    status, _, reason = status_and_reason.partition(" ")
    if not version.startswith("HTTP/") or not (status.isdigit() and len(status) == 3):
        raise _AnswerRefused(f"not an HTTP status line: {status_line[:100]!r}")
    body = bytearray(rest)
    if 200 <= int(status) < 300:
        if success_body:
            length = _content_length(header_lines)
            while (length is None or len(body) < length) and len(body) <= MAX_BODY_BYTES:
                chunk = _read(connection, deadline)
                if not chunk:
                    break
                body += chunk
            if len(body) > MAX_BODY_BYTES:
                raise _AnswerRefused(f"the body exceeds {MAX_BODY_BYTES} bytes")
    else:
        try:
            while len(body) < MAX_BODY_BYTES and (chunk := _read(connection, deadline)):
                body += chunk
        except (TimeoutError, OSError):
            pass  # the status is the answer; the body is what came in time
    return int(status), reason, body[:MAX_BODY_BYTES].decode(errors="replace")


def _content_length(header_lines: list[str]) -> int | None:
    for line in header_lines:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length" and value.strip().isdigit():
            return int(value.strip())
    return None


def _read(connection: socket.socket, deadline: float) -> bytes:
    connection.settimeout(_remaining(deadline))
    return connection.recv(_READ_SIZE)
