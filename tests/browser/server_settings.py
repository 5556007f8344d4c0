"""The browser tests' server: Punto's settings with fast password hashing (demo data and sign-ins
hash passwords; PBKDF2's million rounds would add seconds to every run and nothing to the tests)."""

from casino.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
