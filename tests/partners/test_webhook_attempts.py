"""A webhook attempt against hostile receivers: one deadline, a bounded read, the checked address, verified TLS."""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from partners import deliveries, webhook_http
from partners.models import WebhookDelivery
from tests.partners.test_webhooks import place, register, settle

DEADLINE = 1.5  # seconds, instead of the 10 s of production: the tests wait for it


class RawReceiver:
    """A TCP listener on 127.0.0.1 that hands each connection to ``answer`` (in a thread of its own)."""

    def __init__(self, answer: Callable[[socket.socket], None], *, tls: ssl.SSLContext | None = None) -> None:
        self.answer, self.tls = answer, tls
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        self.requests: list[bytes] = []
        self.stopped = threading.Event()

    def __enter__(self) -> RawReceiver:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopped.set()
        self.listener.close()

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        try:
            if self.tls is not None:
                connection = self.tls.wrap_socket(connection, server_side=True)
            self.requests.append(connection.recv(65536))
            self.answer(connection)
        except OSError:
            pass  # the client hung up: what the tests want
        finally:
            connection.close()


def trickle(connection: socket.socket) -> None:
    """A header byte every 0.3 s, for up to a minute: each read gets a byte well within any per-read timeout."""
    connection.sendall(b"HTTP/1.1 200 OK\r\n")
    for _ in range(200):
        time.sleep(0.3)
        connection.sendall(b"X")


def endless(prefix: bytes, filler: bytes) -> Callable[[socket.socket], None]:
    def answer(connection: socket.socket) -> None:
        connection.sendall(prefix)
        while True:
            connection.sendall(filler * 1024)

    return answer


@pytest.fixture
def short_deadline(monkeypatch):
    monkeypatch.setattr(webhook_http, "ATTEMPT_DEADLINE_SECONDS", DEADLINE)


@pytest.fixture
def pending_delivery(api, player, coup, django_capture_on_commit_callbacks):
    """Settle a coup with a bet of the partner's player; returns a function registering the endpoint first."""

    def make(url: str) -> WebhookDelivery:
        register(api, url)
        place(api, {"player": "10"})
        with django_capture_on_commit_callbacks(execute=False):  # the test makes the attempt itself
            settle(coup)
        return WebhookDelivery.objects.get()

    return make


def attempt(delivery: WebhookDelivery) -> float:
    """One final attempt; the seconds it took."""
    started = time.monotonic()
    deliveries.webhook_delivery_attempt(delivery_id=delivery.pk, final=True)
    delivery.refresh_from_db()
    return time.monotonic() - started


def test_a_receiver_that_trickles_bytes_is_cut_at_the_deadline_and_recorded(short_deadline, pending_delivery):
    with RawReceiver(trickle) as receiver:
        delivery = pending_delivery(f"http://127.0.0.1:{receiver.port}/hooks")
        seconds = attempt(delivery)
    assert DEADLINE <= seconds < DEADLINE + 1
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("failed", 1, None)
    assert delivery.last_error == f"TimeoutError: no complete answer within the attempt's {DEADLINE:g} s"


@pytest.mark.parametrize(
    ("answer", "recorded"),
    [
        (endless(b"HTTP/1.1 500 Oops\r\nX-Padding: ", b"a"), "_AnswerRefused: the status line and headers exceed"),
        (endless(b"HTTP/1.1 500 Oops\r\n", b"X-Padding: a\r\n"), "_AnswerRefused: the status line and headers exceed"),
        (endless(b"HTTP/1.1 500 Oops\r\nContent-Length: 99999999\r\n\r\n", b"b"), "HTTP 500 Oops: bbbb"),
    ],
)
def test_an_endless_answer_is_read_only_up_to_its_caps(pending_delivery, answer, recorded):
    with RawReceiver(answer) as receiver:
        delivery = pending_delivery(f"http://127.0.0.1:{receiver.port}/hooks")
        seconds = attempt(delivery)
    assert seconds < 2  # long before the deadline: the caps, not the clock, end it
    assert delivery.status == "failed" and delivery.last_error.startswith(recorded)
    assert len(delivery.last_error) <= webhook_http.RESPONSE_EXCERPT_BYTES + 50


def test_a_success_is_not_read_past_its_status(pending_delivery):
    with RawReceiver(endless(b"HTTP/1.1 204 No Content\r\n\r\n", b"c")) as receiver:
        delivery = pending_delivery(f"http://127.0.0.1:{receiver.port}/hooks")
        assert attempt(delivery) < 2
    assert (delivery.status, delivery.last_status_code, delivery.last_error) == ("delivered", 204, "")


def test_an_international_path_is_sent_percent_encoded(pending_delivery):
    with RawReceiver(lambda connection: connection.sendall(b"HTTP/1.1 200 OK\r\n\r\n")) as receiver:
        delivery = pending_delivery(f"http://127.0.0.1:{receiver.port}/hooks/café?from=punto")
        attempt(delivery)
    assert delivery.status == "delivered"
    assert receiver.requests[0].startswith(b"POST /hooks/caf%C3%A9?from=punto HTTP/1.1\r\n")


def test_a_name_rebound_to_loopback_after_the_check_is_not_connected_to(
    short_deadline, pending_delivery, settings, monkeypatch
):
    """DNS rebinding: the partner's DNS answers a public address, then 127.0.0.1 (where the attack aims)."""
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    answers = iter(["93.184.215.14", "93.184.215.14", "127.0.0.1", "127.0.0.1", "127.0.0.1"])
    lookups = []

    def getaddrinfo(host, port, *args, **kwargs):
        lookups.append(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (next(answers), port))]

    monkeypatch.setattr(webhook_http.socket, "getaddrinfo", getaddrinfo)
    with RawReceiver(lambda connection: connection.sendall(b"HTTP/1.1 200 OK\r\n\r\n")) as inside:
        delivery = pending_delivery(f"https://rebind.example:{inside.port}/hooks")  # public when registered
        attempt(delivery)
    assert lookups == ["rebind.example", "rebind.example"]  # registration, then once for the attempt
    assert inside.connections == 0
    assert delivery.status == "failed" and delivery.last_status_code is None


def test_a_name_resolving_to_any_private_address_is_refused_before_connecting(pending_delivery, settings, monkeypatch):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    public = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", 443))]
    mixed = [*public, (socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("::ffff:10.0.0.5", 443, 0, 0))]
    monkeypatch.setattr(webhook_http.socket, "getaddrinfo", lambda *args, **kwargs: public)
    delivery = pending_delivery("https://partner.example/hooks")
    monkeypatch.setattr(webhook_http.socket, "getaddrinfo", lambda *args, **kwargs: mixed)
    attempt(delivery)
    assert delivery.last_error == "refused: partner.example resolves to ::ffff:a00:5, which is not a public address"


def test_a_name_slow_to_resolve_ends_the_attempt_in_time(pending_delivery, settings, monkeypatch):
    """A partner's DNS server that never answers must not hold a webhook worker (libc gives no timeout)."""
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    public = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", 443))]
    monkeypatch.setattr(webhook_http.socket, "getaddrinfo", lambda *args, **kwargs: public)
    delivery = pending_delivery("https://slow-dns.example/hooks")
    answered = threading.Event()
    monkeypatch.setattr(webhook_http.socket, "getaddrinfo", lambda *args, **kwargs: answered.wait(30) and public)
    monkeypatch.setattr(webhook_http, "RESOLVE_SECONDS", 0.5)
    started = time.monotonic()
    attempt(delivery)
    answered.set()
    assert time.monotonic() - started < 3
    assert delivery.last_error == "refused: slow-dns.example does not resolve: no answer from DNS within 0.5 s"


# --- TLS -----------------------------------------------------------------------------------------


def certificate(tmp_path, name: str) -> tuple[str, str]:
    """A self-signed certificate for ``name`` (and 127.0.0.1): the files of the certificate and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    names = [x509.DNSName(name), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / f"{name}.pem", tmp_path / f"{name}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return str(cert_file), str(key_file)


def tls_server(cert_file: str, key_file: str, server_names: list) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    context.sni_callback = lambda connection, name, context: server_names.append(name)
    return context


def test_tls_sends_the_host_name_and_verifies_the_certificate_for_it(pending_delivery, monkeypatch, tmp_path):
    cert_file, key_file = certificate(tmp_path, "partner.example")
    monkeypatch.setenv("SSL_CERT_FILE", cert_file)  # the partner's certificate is trusted, as a CA's would be
    monkeypatch.setattr(
        webhook_http.socket,
        "getaddrinfo",
        lambda host, port, *args, **kwargs: [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))],
    )
    server_names: list = []
    answer = lambda connection: connection.sendall(b"HTTP/1.1 200 OK\r\n\r\n")  # noqa: E731
    with RawReceiver(answer, tls=tls_server(cert_file, key_file, server_names)) as receiver:
        delivery = pending_delivery(f"https://partner.example:{receiver.port}/hooks?source=punto")
        attempt(delivery)
    assert (delivery.status, delivery.last_status_code) == ("delivered", 200)
    assert server_names == ["partner.example"]
    request_line, *headers = receiver.requests[0].split(b"\r\n\r\n")[0].decode().split("\r\n")
    assert request_line == "POST /hooks?source=punto HTTP/1.1"
    assert f"Host: partner.example:{receiver.port}" in headers


def test_a_certificate_for_another_name_is_refused(pending_delivery, monkeypatch, tmp_path):
    cert_file, key_file = certificate(tmp_path, "attacker.example")
    monkeypatch.setenv("SSL_CERT_FILE", cert_file)  # trusted, but for another name
    monkeypatch.setattr(
        webhook_http.socket,
        "getaddrinfo",
        lambda host, port, *args, **kwargs: [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))],
    )
    answer = lambda connection: connection.sendall(b"HTTP/1.1 200 OK\r\n\r\n")  # noqa: E731
    with RawReceiver(answer, tls=tls_server(cert_file, key_file, [])) as receiver:
        delivery = pending_delivery(f"https://partner.example:{receiver.port}/hooks")
        attempt(delivery)
    assert (delivery.status, delivery.last_status_code) == ("failed", None)
    assert delivery.last_error.startswith("SSLCertVerificationError") and "partner.example" in delivery.last_error
