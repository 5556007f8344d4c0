"""The demo's live test streams on the site's own origin (docs/live.md, Live video): a dealer table's HLS playlist
and segments and a still of the stream (the lobby's card shows it), written by ``manage.py serve --demo-video``
(``casino.management.demo_video``) under ``DEMO_VIDEO_ROOT/<table code>/``, served at ``/video/<table code>/``: the
pages' CSP needs no other origin.

Only the encoder's own file names are served (a playlist, its numbered segments, the still): nothing else in the
folder (a half-written ``.tmp``, the caption, the encoder's log), nothing outside it (a table's code is a slug: no
dot, no slash).
"""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_safe

PLAYLIST = "live.m3u8"
SEGMENTS = "segment-%d.ts"  # ffmpeg's pattern; the numbers come from the clock (a restart never reuses one)
STILL = "still.jpg"  # a frame every few seconds, overwritten in place (renamed from a .tmp: never half-written)
FILE_NAME = re.compile(r"live\.m3u8|segment-[0-9]{1,20}\.ts|still\.jpg")
TABLE_CODE = re.compile(r"[-a-zA-Z0-9_]+")  # the URL's slug, checked again here: never "..", never a "/"
CONTENT_TYPES = {".m3u8": "application/vnd.apple.mpegurl", ".ts": "video/mp2t", ".jpg": "image/jpeg"}
CHANGING = {PLAYLIST, STILL}  # rewritten under the same name: never from a cache


def demo_video_path(*, code: str) -> str:
    """The table's test stream as its ``video_url``: a path, so the page plays it from whatever origin it is on."""
    return reverse("video", args=[code, PLAYLIST])


def video_still_path(*, code: str, video_url: str) -> str | None:
    """The still of the table's video, where the site serves one: its demo test stream's (a studio's stream, on a
    CDN, has none here)."""
    return reverse("video", args=[code, STILL]) if video_url == demo_video_path(code=code) else None


@require_safe
def video_file(request: HttpRequest, code: str, name: str) -> HttpResponse:
    if not (TABLE_CODE.fullmatch(code) and FILE_NAME.fullmatch(name)):
        raise Http404("not a file of a stream")
    path = Path(settings.DEMO_VIDEO_ROOT) / code / name
    try:
        content = path.read_bytes()  # small (a segment is about 16 kB); the ASGI handler reads a body whole anyway
    except OSError as error:  # not written yet, or already deleted by the encoder
        raise Http404("no such file in the stream") from error
    response = HttpResponse(content, content_type=CONTENT_TYPES[path.suffix])
    # The playlist changes every second, the still every few: never from a cache. A segment never changes (its number
    # is never reused).
    response["Cache-Control"] = "no-store" if name in CHANGING else "max-age=60"
    return response
