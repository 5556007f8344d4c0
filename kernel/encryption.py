"""Encryption at rest for the secrets a database dump must not reveal: an RNG shoe's order, burned cards
and salt until the shoe is out of play, and the webhook signing secrets.

Fernet (AES-128-CBC and HMAC-SHA256) with MultiFernet: ``ENCRYPTION_KEY`` holds comma-separated keys,
the first encrypts and every one decrypts, so a new key goes first and the old one stays until
``manage.py encryption_rotate`` has re-encrypted the rows. Without it (the embedded default) a key is
made on first use in ``var/encryption.key`` (mode 0600); ``PRODUCTION`` refuses to start without it.

Nothing decrypts on load: the code that needs a secret (dealing, the reveal once the shoe is out of
play, signing a webhook) calls ``decrypt`` on the column, so no screen gets the plaintext by accident.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


class DecryptionFailed(Exception):
    """A value that none of the configured keys decrypts: a wrong or missing key, or a tampered value."""


def key_generate() -> str:
    return Fernet.generate_key().decode()


def keys_check(keys: list[str]) -> None:
    """Refuse, at startup, a key that is not a Fernet key (32 url-safe base64-encoded bytes)."""
    for key in keys:
        try:
            Fernet(key)
        except (ValueError, TypeError):
            raise ImproperlyConfigured(
                "ENCRYPTION_KEY holds comma-separated Fernet keys of 32 url-safe base64-encoded bytes "
                "(python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())')"
            ) from None


def encrypt(plaintext: str) -> str:
    """The value as a Fernet token; an empty value stays empty (there is nothing to hide)."""
    return _fernet(*_keys()).encrypt(plaintext.encode()).decode() if plaintext else ""


def decrypt(token: str) -> str:
    if not token:
        return ""
    try:
        return _fernet(*_keys()).decrypt(token.encode()).decode()
    except InvalidToken:
        raise DecryptionFailed(
            "a secret could not be decrypted: ENCRYPTION_KEY does not hold the key it was encrypted with"
        ) from None


def reencrypt(token: str) -> str:
    """The same value encrypted with the first key (key rotation)."""
    if not token:
        return ""
    try:
        return _fernet(*_keys()).rotate(token.encode()).decode()
    except InvalidToken:
        raise DecryptionFailed(
            "a secret could not be re-encrypted: none of the keys in ENCRYPTION_KEY opens it"
        ) from None


def _keys() -> tuple[str, ...]:
    return tuple(settings.ENCRYPTION_KEYS) or (_local_key(Path(settings.ENCRYPTION_KEY_FILE)),)


@functools.cache
def _fernet(*keys: str) -> MultiFernet:
    return MultiFernet([Fernet(key) for key in keys])


@functools.cache
def _local_key(path: Path) -> str:
    """The embedded default's key, made on first use: written whole to a private file, then linked into
    place, so that processes starting together agree on one key."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{os.getpid()}")
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(key_generate())
        try:
            os.link(draft, path)
        except FileExistsError:
            pass  # another process made it first: its key is the one
        finally:
            draft.unlink()
    return path.read_text().strip()
