"""The production settings pass Django's deployment checks; every answer carries the security headers."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from kernel.encryption import key_generate
from tests.factories import TableFactory

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_ENV = {"PRODUCTION": "1", "ALLOWED_HOSTS": "punto.example", "DEBUG": "0", "ENCRYPTION_KEY": key_generate()}
UNSET = ("SECRET_KEY", "DEBUG", "ENCRYPTION_KEY")


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if key not in UNSET}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**environment, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_production_settings_pass_check_deploy():
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        SECRET_KEY=secrets.token_urlsafe(64),
        **PRODUCTION_ENV,
    )
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_the_local_profile_is_what_check_deploy_warns_about():
    """The test can fail: without PRODUCTION the same check finds the plain-http settings."""
    result = manage("check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode != 0
    assert "security.W004" in result.stderr and "security.W012" in result.stderr


@pytest.mark.parametrize("secret_key", [None, settings.DEVELOPMENT_SECRET_KEY, "too-short"])
def test_production_refuses_to_start_without_its_own_secret_key(secret_key):
    result = manage("check", **PRODUCTION_ENV, **({"SECRET_KEY": secret_key} if secret_key else {}))
    assert result.returncode != 0
    assert "PRODUCTION needs its own SECRET_KEY" in result.stderr


@pytest.mark.parametrize("encryption_key", [None, ""])
def test_production_refuses_to_start_without_an_encryption_key(encryption_key):
    environment = {key: value for key, value in PRODUCTION_ENV.items() if key != "ENCRYPTION_KEY"}
    if encryption_key is not None:
        environment["ENCRYPTION_KEY"] = encryption_key
    result = manage("check", "--deploy", SECRET_KEY=secrets.token_urlsafe(64), **environment)
    assert result.returncode != 0
    assert "PRODUCTION needs ENCRYPTION_KEY" in result.stderr


@pytest.mark.parametrize("encryption_key", ["not-a-key", f"{key_generate()},too-short"])
def test_a_malformed_encryption_key_is_refused_at_startup(encryption_key):
    result = manage("check", ENCRYPTION_KEY=encryption_key)
    assert result.returncode != 0
    assert "ENCRYPTION_KEY holds comma-separated Fernet keys" in result.stderr


def assert_security_headers(response) -> None:
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    policy = dict(directive.strip().split(" ", 1) for directive in response["Content-Security-Policy"].split(";"))
    assert policy["default-src"] == "'self'"
    assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'"  # no inline script or style
    assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'"


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/accounts/login/", "/admin/login/", "/api/docs/", "/api/v1/tables/"])
def test_pages_and_api_answers_carry_the_security_headers(client, path):
    TableFactory(code="pb1")
    response = client.get(path)
    assert response.status_code in (200, 401)
    assert_security_headers(response)


@pytest.mark.django_db
def test_the_api_docs_page_has_no_inline_script_and_loads_nothing_from_elsewhere(client):
    page = client.get("/api/docs/").content.decode()
    assert "<script>" not in page and "<style>" not in page
    assert "cdn" not in page and "//" not in page.replace("http://", "").replace("https://", "")
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page


@pytest.mark.django_db
def test_session_and_csrf_cookies_are_http_only_and_same_site(client, django_user_model):
    page = client.get("/accounts/login/")
    csrf = page.cookies[settings.CSRF_COOKIE_NAME]
    assert csrf["httponly"] and csrf["samesite"] == "Lax"
    user = django_user_model.objects.create_user(username="alice", password="punto-demo")
    client.post("/accounts/login/", {"username": user.username, "password": "punto-demo"})
    session = client.cookies[settings.SESSION_COOKIE_NAME]
    assert session["httponly"] and session["samesite"] == "Lax"


def test_production_cookies_are_secure_and_https_is_enforced():
    code = (
        "from django.conf import settings as s; "
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS, "
        "s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_HSTS_PRELOAD, s.SECURE_PROXY_SSL_HEADER)"
    )
    result = manage("shell", "-c", code, SECRET_KEY=secrets.token_urlsafe(64), **PRODUCTION_ENV)
    assert result.stdout.split("\n")[-2] == "True True True 31536000 True True ('HTTP_X_FORWARDED_PROTO', 'https')"
