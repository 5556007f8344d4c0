"""Staff sign in with a password and a TOTP code; a staff session without one reaches no staff page;
staff sessions end after STAFF_SESSION_IDLE_MINUTES idle; demo users never in production."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone
from django_otp.plugins.otp_totp.models import TOTPDevice

from casino.sign_in.two_factor import staff_totp_device_issue
from tables.models import AuditLog
from tests.factories import TableFactory, UserFactory, staff_login, totp_code

pytestmark = pytest.mark.django_db

PASSWORD = "punto-demo"
STAFF_PAGES = ("/admin/", "/admin/tables/table/", "/admin/wagering/account/", "/admin/auth/user/", "/console/")


@pytest.fixture(autouse=True)
def quick_hashes(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def boss(db):
    """A superuser with a two-factor device: every staff page is open to them once verified."""
    user = UserFactory(username="boss", is_staff=True, is_superuser=True, password=make_password(PASSWORD))
    user.device = staff_totp_device_issue(user=user, actor_label="tests")
    return user


def staff_sign_in(client: Client, code: str | None, username: str = "boss"):
    form = {"username": username, "password": PASSWORD, **({"otp_token": code} if code is not None else {})}
    return client.post("/admin/login/?next=/admin/", form)


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_the_password_and_the_current_code_open_the_admin(boss):
    client = Client()
    response = staff_sign_in(client, totp_code(boss.device))
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200
    assert client.get("/console/").status_code == 200


@pytest.mark.parametrize("code", [None, "", "000000x", "12345"])
def test_the_password_alone_or_a_malformed_code_signs_nobody_in(boss, code):
    client = Client()
    response = staff_sign_in(client, code)
    assert response.status_code == 200 and not signed_in(client)
    assert "wrong or already used" in response.content.decode()


def test_a_wrong_code_is_refused(boss):
    right = totp_code(boss.device)
    client = Client()
    response = staff_sign_in(client, f"{(int(right) + 1) % 1_000_000:06d}")
    assert response.status_code == 200 and not signed_in(client)
    assert client.get("/admin/").status_code == 302


def test_a_code_is_accepted_once(boss):
    """Someone who saw the code typed (or replays the form) cannot sign in with it again."""
    code = totp_code(boss.device)
    first = Client()
    assert staff_sign_in(first, code).status_code == 302
    second = Client()
    response = staff_sign_in(second, code)
    assert response.status_code == 200 and not signed_in(second)
    assert "wrong or already used" in response.content.decode()


def test_another_staff_members_code_does_not_open_an_account(boss):
    other = UserFactory(username="other", is_staff=True, password=make_password(PASSWORD))
    staff_totp_device_issue(user=other, actor_label="tests")
    client = Client()
    response = staff_sign_in(client, totp_code(boss.device), username="other")
    assert response.status_code == 200 and not signed_in(client)


def test_a_staff_account_without_a_device_cannot_sign_in_and_is_told_why(db):
    UserFactory(username="newbie", is_staff=True, password=make_password(PASSWORD))
    client = Client()
    response = staff_sign_in(client, "123456", username="newbie")
    assert response.status_code == 200 and not signed_in(client)
    assert "manage.py staff_otp_device newbie" in response.content.decode()


def test_staff_cannot_skip_the_code_through_the_players_sign_in(boss):
    client = Client()
    response = client.post("/accounts/login/", {"username": "boss", "password": PASSWORD})
    assert response.status_code == 200 and not signed_in(client)
    assert "two-factor code" in response.content.decode()


def test_players_sign_in_without_a_code(db):
    UserFactory(username="alice", password=make_password(PASSWORD))
    client = Client()
    response = client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302 and signed_in(client)


@pytest.mark.parametrize("path", STAFF_PAGES)
def test_a_staff_session_without_a_verified_device_reaches_no_staff_page(boss, path):
    """A session signed in by password only (a stolen session of a half-finished sign-in, a device
    removed since) is sent to the staff sign-in."""
    client = Client()
    client.force_login(boss)
    response = client.get(path)
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


def test_removing_the_device_ends_the_staff_sessions_it_verified(boss):
    client = staff_login(Client(), boss)
    assert client.get("/admin/").status_code == 200
    TOTPDevice.objects.filter(user=boss).delete()
    assert client.get("/admin/").status_code == 302


def test_an_unverified_staff_session_changes_nothing(boss):
    table = TableFactory(code="pb1")
    client = Client()
    client.force_login(boss)
    response = client.post("/admin/tables/table/", {"action": "close_tables", "_selected_action": [table.pk]})
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    table.refresh_from_db()
    assert table.is_open


# --- Idle staff sessions --------------------------------------------------------------------------


@pytest.fixture
def clock(monkeypatch):
    """Move the server's clock forward by some minutes."""
    real_now = timezone.now
    moved = {"minutes": 0}
    monkeypatch.setattr(timezone, "now", lambda: real_now() + timedelta(minutes=moved["minutes"]))

    def move_to(minutes: int) -> None:
        moved["minutes"] = minutes

    return move_to


def test_a_staff_session_ends_after_the_idle_minutes(boss, clock):
    client = staff_login(Client(), boss)
    assert client.get("/admin/").status_code == 200
    clock(settings.STAFF_SESSION_IDLE_MINUTES + 1)
    assert client.get("/admin/").status_code == 302


def test_each_request_starts_the_idle_minutes_again(boss, clock):
    idle = settings.STAFF_SESSION_IDLE_MINUTES
    client = staff_login(Client(), boss)
    assert client.get("/admin/").status_code == 200
    clock(idle - 1)
    assert client.get("/admin/").status_code == 200
    clock(2 * idle - 2)
    assert client.get("/admin/").status_code == 200


def test_a_players_session_keeps_its_age(db, clock):
    player = UserFactory(username="alice", password=make_password(PASSWORD))
    client = Client()
    client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert client.session["_auth_user_id"] == str(player.pk)
    clock(settings.STAFF_SESSION_IDLE_MINUTES * 10)
    assert client.get("/accounts/login/?next=/").context["user"] == player


# --- Devices and demo users -----------------------------------------------------------------------


def test_the_device_command_prints_a_secret_that_signs_in_once(db, capsys):
    UserFactory(username="carla", is_staff=True, password=make_password(PASSWORD))
    call_command("staff_otp_device", "carla")
    printed = capsys.readouterr().out
    assert "otpauth://totp/Punto%3Acarla?secret=" in printed
    device = TOTPDevice.objects.get(user__username="carla")
    assert AuditLog.objects.filter(action="staff_otp_device_issued", object_id=str(device.pk)).exists()
    assert staff_sign_in(Client(), totp_code(device), username="carla").status_code == 302
    with pytest.raises(CommandError, match="already has a two-factor device"):
        call_command("staff_otp_device", "carla")
    call_command("staff_otp_device", "carla", "--replace")
    assert not TOTPDevice.objects.filter(pk=device.pk).exists()


def test_players_get_no_device(db):
    UserFactory(username="alice")
    with pytest.raises(CommandError, match="not a staff account"):
        call_command("staff_otp_device", "alice")
    assert not TOTPDevice.objects.exists()


def test_demo_data_gives_demo_staff_a_device_and_prints_it(db, capsys):
    call_command("demo_data")
    printed = capsys.readouterr().out
    for username in ("admin", "pitboss", "dealer", "surveillance"):
        device = TOTPDevice.objects.get(user__username=username, confirmed=True)
        assert f"otpauth://totp/Punto%3A{username}?secret=" in printed and device.config_url in printed
    assert not TOTPDevice.objects.filter(user__username="alice").exists()


def test_demo_data_refuses_to_create_demo_users_in_production(db, settings):
    settings.PRODUCTION = True
    before = AuditLog.objects.count()
    with pytest.raises(CommandError, match="never created in production"):
        call_command("demo_data")
    assert not UserFactory._meta.model.objects.exists() and AuditLog.objects.count() == before


@pytest.mark.parametrize("deployment", [{"PRODUCTION": True}, {"REDIS_URL": "redis://127.0.0.1:6379/6"}])
def test_the_run_script_loads_no_demo_data_on_a_deployment(db, settings, capsys, deployment):
    """scripts/run.sh runs demo_data --only-local."""
    for name, value in deployment.items():
        setattr(settings, name, value)
    call_command("demo_data", "--only-local")
    assert "No demo data loaded" in capsys.readouterr().out
    assert not UserFactory._meta.model.objects.exists()


def test_the_run_script_asks_for_local_demo_data_only():
    script = (settings.BASE_DIR / "scripts" / "run.sh").read_text()
    assert "manage.py demo_data --only-local" in script
    assert script.count("demo_data") == 1


def test_guessing_codes_is_slowed_down(boss):
    """Someone who has the password cannot try codes quickly: each wrong one doubles the wait (django-otp)."""
    right = totp_code(boss.device)
    wrong = f"{(int(right) + 1) % 1_000_000:06d}"
    staff_sign_in(Client(), wrong)
    client = Client()
    response = staff_sign_in(client, right)
    assert response.status_code == 200 and not signed_in(client)
    assert "Too many wrong codes" in response.content.decode()
