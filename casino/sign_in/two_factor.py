"""Staff sign-in: password and TOTP code (django-otp), the one check that keeps staff pages and sockets
two-factor, the staff session's idle expiry, and the sign-in lock-out's reset.

A staff account (``is_staff``) signs in at the admin's sign-in with its password and the current
code of its authenticator app; the session then remembers the verified device. A staff session
without one (a password-only sign-in, a device removed since) is anonymous on every page and socket.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Callable
from functools import wraps
from importlib import import_module
from types import SimpleNamespace

from axes.models import AccessAttempt
from channels.auth import get_user as get_socket_user
from channels.db import database_sync_to_async
from django import forms
from django.conf import settings
from django.contrib.admin import AdminSite
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.utils.functional import SimpleLazyObject
from django_otp.middleware import OTPMiddleware
from django_otp.plugins.otp_totp.models import TOTPDevice

from tables.audit import audit_record

logger = logging.getLogger(__name__)

NO_DEVICE = (
    "This staff account has no two-factor device yet: an administrator creates one with "
    "'manage.py staff_otp_device {username}'."
)
WRONG_CODE = "That code is wrong or already used: enter the current 6-digit code of your authenticator app."
STAFF_USE_STAFF_SIGN_IN = "Staff accounts sign in at the staff sign-in (/admin/login/) with their two-factor code."
STAFF_SOCKET_CHECK_SECONDS = 30  # how late an open staff socket may learn that its session has ended
STAFF_SESSION_ENDED = 4401  # its close code: live.js reconnects, as nobody then


class StaffDeviceError(ValueError):
    pass


def staff_device(*, user: AbstractBaseUser) -> TOTPDevice | None:
    return TOTPDevice.objects.filter(user=user, confirmed=True).first()


@transaction.atomic
def staff_totp_device_issue(
    *,
    user: AbstractBaseUser,
    actor: AbstractBaseUser | None = None,
    actor_label: str = "manage.py",
    replace: bool = False,
) -> TOTPDevice:
    """Give a staff account its TOTP device (the only one it has); ``replace`` discards the old one first."""
    if not user.is_staff:
        raise StaffDeviceError(f"{user.get_username()} is not a staff account: players sign in without a code")
    devices = TOTPDevice.objects.select_for_update(of=("self",)).filter(user=user)
    if devices.exists() and not replace:
        raise StaffDeviceError(f"{user.get_username()} already has a two-factor device: replace it explicitly")
    devices.delete()
    device = TOTPDevice.objects.create(user=user, name="authenticator", confirmed=True)
    audit_record(
        action="staff_otp_device_issued",
        actor=actor,
        actor_label=actor_label,
        obj=device,
        after={"user": user.get_username(), "replaced": replace},
    )
    return device


def device_secret(device: TOTPDevice) -> str:
    """The secret as an authenticator app takes it by hand (base32)."""
    return base64.b32encode(device.bin_key).decode()


class StaffAuthenticationForm(AdminAuthenticationForm):
    """The admin's sign-in: password (checked by django-axes' backend first) and the current TOTP code."""

    otp_token = forms.CharField(
        label="Two-factor code",
        max_length=8,
        required=False,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}),
    )

    def clean(self) -> dict:
        cleaned = super().clean()
        user = self.get_user()
        if user is None:  # username or password missing: their fields say so
            return cleaned
        device = staff_device(user=user)
        if device is None:
            raise forms.ValidationError(NO_DEVICE.format(username=user.get_username()), code="no_device")
        allowed, _ = device.verify_is_allowed()
        if not allowed:
            raise forms.ValidationError("Too many wrong codes: wait a few seconds and try again.", code="throttled")
        # verify_token refuses a code of a time step already used (replay) and throttles failures.
        if not device.verify_token(cleaned.get("otp_token", "").strip()):
            raise forms.ValidationError(WRONG_CODE, code="wrong_code")
        user.otp_device = device  # django_otp's user_logged_in receiver keeps it in the session
        return cleaned


class PlayerAuthenticationForm(AuthenticationForm):
    """The players' sign-in: a staff account is sent to the staff sign-in, which asks for its code."""

    def confirm_login_allowed(self, user: AbstractBaseUser) -> None:
        super().confirm_login_allowed(user)
        if user.is_staff:
            raise forms.ValidationError(STAFF_USE_STAFF_SIGN_IN, code="staff_account")


class StaffAdminSite(AdminSite):
    login_form = StaffAuthenticationForm
    login_template = "admin/staff_login.html"

    def has_permission(self, request: HttpRequest) -> bool:
        return super().has_permission(request) and request.user.is_verified()


def _staff_unverified(user: AbstractBaseUser) -> bool:
    return user.is_authenticated and user.is_staff and not user.is_verified()


class StaffSessionMiddleware:
    """After django-otp's middleware: a staff session without a verified device is anonymous (admin,
    console and every other page), and a staff session expires ``STAFF_SESSION_IDLE_MINUTES`` after
    its last request (players keep ``SESSION_COOKIE_AGE``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = request.user
        request.user = SimpleLazyObject(lambda: AnonymousUser() if _staff_unverified(user) else user)
        response = self.get_response(request)
        # After the view, as a sign-in or sign-out has left it; a request without a session loads no user.
        if SESSION_KEY in request.session and request.user.is_staff and getattr(request, "staff_activity", True):
            request.session.set_expiry(settings.STAFF_SESSION_IDLE_MINUTES * 60)
        return response


class StaffSocketMiddleware:
    """Inside channels' ``AuthMiddlewareStack``: a staff member's WebSocket follows the staff rules of pages.

    A staff user whose session has no verified device connects as anonymous. An open staff socket's session is
    read again from the store every ``STAFF_SOCKET_CHECK_SECONDS``; once it signs nobody in (idle
    ``STAFF_SESSION_IDLE_MINUTES``, signed out, device removed, password changed) the socket is closed with
    ``STAFF_SESSION_ENDED`` and its consumer told as by a disconnect. Nothing the socket receives or sends is
    staff activity (the session's expiry, which pages set, is the only stamp): an unattended tablet's socket
    closes with its session. Players' sockets go through untouched."""

    def __init__(self, inner: Callable) -> None:
        self.inner = inner

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        user = scope.get("user")
        if scope["type"] != "websocket" or user is None or not user.is_authenticated or not user.is_staff:
            return await self.inner(scope, receive, send)
        if (await database_sync_to_async(_verified)(user, scope["session"])).is_anonymous:
            return await self.inner({**scope, "user": AnonymousUser()}, receive, send)
        socket = _StaffSocket(receive, send)
        watcher = asyncio.create_task(socket.watch(session_key=scope["session"].session_key, user_id=user.pk))
        try:
            return await self.inner(scope, socket.receive, socket.send)
        finally:
            watcher.cancel()
            socket.stop()


def _verified(user: AbstractBaseUser, session) -> AbstractBaseUser:
    """The user as pages see them: django-otp's own middleware, run on the session, then ``_staff_unverified``."""
    request = SimpleNamespace(user=user, session=session)
    OTPMiddleware(lambda request: None)(request)
    return AnonymousUser() if _staff_unverified(request.user) else request.user


async def _session_user_id(session_key: str) -> int | None:
    """Whom the session signs in now, as the store holds it (gone once idle or signed out)."""
    session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    user = await get_socket_user({"session": session})  # channels' check: user, backend, password hash
    return (await database_sync_to_async(_verified)(user, session)).pk


class _StaffSocket:
    """A staff socket's messages, until its session ends: then the socket is closed for its consumer, which
    receives a disconnect and whose later messages go nowhere (a server refuses any after the close)."""

    def __init__(self, receive: Callable, send: Callable) -> None:
        self._receive, self._send = receive, send
        self.ended, self.closed = asyncio.Event(), False
        self.pending: asyncio.Future | None = None  # the server's next message, waited for across calls

    async def watch(self, *, session_key: str, user_id: int) -> None:
        while True:
            await asyncio.sleep(STAFF_SOCKET_CHECK_SECONDS)
            try:
                if await _session_user_id(session_key) != user_id:
                    break
            except Exception:  # fails closed: live.js reconnects, and the connect checks again
                logger.exception("a staff socket's session could not be checked: the socket is closed")
                break
        self.ended.set()
        if not self.closed:
            self.closed = True
            await self._send({"type": "websocket.close", "code": STAFF_SESSION_ENDED})

    async def receive(self) -> dict:
        if not self.ended.is_set():
            self.pending = self.pending or asyncio.ensure_future(self._receive())
            ending = asyncio.ensure_future(self.ended.wait())
            try:
                await asyncio.wait({self.pending, ending}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                ending.cancel()
            if self.pending.done():
                message, self.pending = self.pending.result(), None
                return message
        return {"type": "websocket.disconnect", "code": STAFF_SESSION_ENDED}

    async def send(self, message: dict) -> None:
        if self.closed:
            return
        self.closed = message["type"] == "websocket.close"
        await self._send(message)

    def stop(self) -> None:
        if self.pending is not None:
            self.pending.cancel()


def not_staff_activity(view: Callable) -> Callable:
    """A request a page makes by itself (a poll every few seconds) is not the staff member at work: it does not
    put off the end of their idle session, so an unattended tablet still signs out."""

    @wraps(view)
    def polled(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        request.staff_activity = False
        return view(request, *args, **kwargs)

    return polled


def auto_refresh_not_staff_activity(view: Callable) -> Callable:
    """A page that fetches itself again (``static/js/console.js`` sends ``X-Auto-Refresh: 1``) is not the staff
    member at work either, while the same page asked for by hand is. The header can only withhold the idle
    session's extension: it is never trusted for anything else."""

    @wraps(view)
    def refreshed(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.headers.get("X-Auto-Refresh") == "1":
            request.staff_activity = False
        return view(request, *args, **kwargs)

    return refreshed


def sign_in_failures_reset(sender: object, request: HttpRequest, user: AbstractBaseUser, **kwargs: object) -> None:
    """A successful sign-in forgets that username's failures from that address only.

    django-axes' own reset (AXES_RESET_ON_SUCCESS) would forget every failure of the address and of the
    username: an attacker spraying passwords over usernames could clear the address's count by
    signing in to an account of their own every few tries.
    """
    address = getattr(request, "axes_ip_address", None) if request is not None else None
    if address:
        AccessAttempt.objects.filter(username=user.get_username(), ip_address=address).delete()
