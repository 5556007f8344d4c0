"""Staff sign-in: password and TOTP code (django-otp), the one check that keeps staff pages two-factor,
the staff session's idle expiry, and the sign-in lock-out's reset.

A staff account (``is_staff``) signs in at the admin's sign-in with its password and the current
code of its authenticator app; the session then remembers the verified device. A staff session
without one (a password-only sign-in, a device removed since) is anonymous on every page.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from functools import wraps

from axes.models import AccessAttempt
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
from django_otp.plugins.otp_totp.models import TOTPDevice

from tables.audit import audit_record

NO_DEVICE = (
    "This staff account has no two-factor device yet: an administrator creates one with "
    "'manage.py staff_otp_device {username}'."
)
WRONG_CODE = "That code is wrong or already used: enter the current 6-digit code of your authenticator app."
STAFF_USE_STAFF_SIGN_IN = "Staff accounts sign in at the staff sign-in (/admin/login/) with their two-factor code."


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
