"""Brute-force lock-out on the players' and the staff's sign-in (django-axes, settings in casino/settings.py):
by username across addresses, and by address across usernames."""

import itertools

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.test import Client

from casino.sign_in.two_factor import staff_totp_device_issue
from tests.factories import UserFactory, totp_code

pytestmark = pytest.mark.django_db

PASSWORD = "punto-demo"
SIGN_INS = {"player": "/accounts/login/", "staff": "/admin/login/"}
LIMIT = settings.AXES_FAILURE_LIMIT
LOCKED_OUT = f"try again in {settings.AXES_COOLOFF_TIME.seconds // 60} minutes"


@pytest.fixture(autouse=True)
def quick_hashes(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(params=sorted(SIGN_INS))
def sign_in(request):
    """Post a sign-in from an address; answers the response and whether a session was opened."""
    url = SIGN_INS[request.param]
    staff = request.param == "staff"
    devices, later_codes = {}, itertools.count()

    def post(username: str, password: str, *, address: str = "203.0.113.7", **headers) -> tuple[object, bool]:
        """Staff also send their device's next unused code: only the password is under test here."""
        client = Client(REMOTE_ADDR=address, **headers)
        form = {"username": username, "password": password}
        if username in devices and password == PASSWORD:
            form["otp_token"] = totp_code(devices[username], steps_ahead=next(later_codes))
        response = client.post(url, form)
        return response, "_auth_user_id" in client.session

    def make_user(username: str):
        user = UserFactory(username=username, is_staff=staff, password=make_password(PASSWORD))
        if staff:
            devices[username] = staff_totp_device_issue(user=user, actor_label="tests")
        return user

    post.make_user = make_user
    return post


def fail(sign_in, username: str, times: int, **where) -> None:
    for _ in range(times):
        response, signed_in = sign_in(username, "wrong", **where)
        assert response.status_code == 200 and not signed_in


def assert_locked_out(response, signed_in: bool) -> None:
    assert response.status_code == 429
    assert not signed_in
    assert "Too many failed sign-ins" in response.content.decode()
    assert LOCKED_OUT in response.content.decode()


def lock_out(sign_in, username: str) -> None:
    """The failure that reaches the limit is answered with the lock-out."""
    fail(sign_in, username, LIMIT - 1)
    assert_locked_out(*sign_in(username, "wrong"))


def test_the_failures_up_to_the_limit_lock_the_username_out(sign_in):
    sign_in.make_user("alice")
    lock_out(sign_in, "alice")


def test_the_right_password_is_refused_while_locked_out(sign_in):
    sign_in.make_user("alice")
    lock_out(sign_in, "alice")
    assert_locked_out(*sign_in("alice", PASSWORD))


def test_a_success_resets_the_count(sign_in):
    sign_in.make_user("alice")
    fail(sign_in, "alice", LIMIT - 1)
    response, signed_in = sign_in("alice", PASSWORD)
    assert response.status_code == 302 and signed_in
    fail(sign_in, "alice", LIMIT - 1)
    assert sign_in("alice", PASSWORD)[1]


def test_a_locked_out_username_leaves_other_users_at_other_addresses_alone(sign_in):
    sign_in.make_user("alice")
    sign_in.make_user("bob")
    lock_out(sign_in, "alice")
    assert sign_in("bob", PASSWORD, address="198.51.100.2")[1]


def test_one_username_tried_from_many_addresses_is_locked_out(sign_in):
    """A botnet guessing one account's password, each address trying once."""
    sign_in.make_user("alice")
    for number in range(1, LIMIT):
        fail(sign_in, "alice", 1, address=f"198.51.100.{number}")
    assert_locked_out(*sign_in("alice", "wrong", address="198.51.100.99"))
    assert_locked_out(*sign_in("alice", PASSWORD, address="192.0.2.50"))


def test_one_address_spraying_a_password_over_many_usernames_is_locked_out(sign_in):
    sign_in.make_user("bob")
    for number in range(1, LIMIT):
        fail(sign_in, f"user{number}", 1)
    assert_locked_out(*sign_in("user99", "wrong"))
    assert_locked_out(*sign_in("bob", PASSWORD))
    assert sign_in("bob", PASSWORD, address="198.51.100.2")[1]


def test_signing_in_to_ones_own_account_does_not_clear_the_address_count(sign_in):
    """The sprayer signs in to an account of their own between tries: that forgets only their own failures."""
    sign_in.make_user("mallory")
    for number in range(1, LIMIT):
        fail(sign_in, f"user{number}", 1)
    assert sign_in("mallory", PASSWORD)[1]
    assert_locked_out(*sign_in("user99", "wrong"))


def test_the_lock_out_expires_after_the_cool_off(sign_in):
    sign_in.make_user("alice")
    lock_out(sign_in, "alice")
    assert_locked_out(*sign_in("alice", PASSWORD))
    attempt = AccessAttempt.objects.get(username="alice")
    AccessAttempt.objects.filter(pk=attempt.pk).update(attempt_time=attempt.attempt_time - settings.AXES_COOLOFF_TIME)
    response, signed_in = sign_in("alice", PASSWORD)
    assert response.status_code == 302 and signed_in


def test_a_forged_forwarded_for_header_does_not_escape_the_lock_out(sign_in):
    """The address is REMOTE_ADDR, which uvicorn --proxy-headers sets from the trusted proxy's header only."""
    sign_in.make_user("alice")
    lock_out(sign_in, "alice")
    assert_locked_out(*sign_in("alice", PASSWORD, HTTP_X_FORWARDED_FOR="198.51.100.9"))
