"""The browser tests' server: Punto's settings with fast password hashing (demo data and sign-ins
hash passwords; PBKDF2's million rounds would add seconds to every run and nothing to the tests)."""

from casino.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
VIDEO_URL_ALLOW_HTTP = True  # test_video.py streams from a server of its own on http://127.0.0.1
