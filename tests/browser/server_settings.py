"""The browser tests' server: Punto's settings with fast password hashing (demo data and sign-ins
hash passwords; PBKDF2's million rounds would add seconds to every run and nothing to the tests)."""

import os
from pathlib import Path

from casino.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# A card offered to squeeze waits longer than a player's 2.5 s: on a loaded machine, the steps a test takes from the
# card's arrival to its drag (scrolling, measuring, moving the mouse) outlasted it, and the card turned by itself.
SQUEEZE_TURN_SECONDS = 6
VIDEO_URL_ALLOW_HTTP = True  # test_video.py streams from a server of its own on http://127.0.0.1
# Each test session collects the static files into a folder of its own: two sessions at once (the two
# databases' runs, or two developers' on one machine) would rewrite them under each other's server.
STATIC_ROOT = Path(os.environ["BROWSER_TESTS_STATIC_ROOT"])
