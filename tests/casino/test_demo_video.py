"""The demo's live test streams (issue 32; docs/live.md, Live video): ``/video/<table>/`` serves a stream's playlist,
segments and still with their types (the playlist and the still never cached) and nothing else, inside the folder or
out of it; ``manage.py serve --demo-video`` starts an encoder per demo dealer table (the stream and a still of it) and
points the table at it, and never in a deployment, never over a studio's stream; without ffmpeg the tables show no
video."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest
from django.http import Http404

from casino.management import demo_video
from casino.management.demo_video import demo_video_start
from casino.players.video import video_file
from tables.models import AuditLog, Table
from tables.services import table_create, table_rules_update

pytestmark = pytest.mark.django_db

PLAYLIST = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.000000,\nsegment-1795870552.ts\n"
SECRET = "SECRET: not a file of the stream"
STUDIO = "https://cdn.example.com/studio/live.m3u8"
JPEG = b"\xff\xd8\xff\xe0" + bytes(16)  # a JPEG's start


@pytest.fixture
def stream(settings, tmp_path: Path) -> Path:
    """live3's stream in DEMO_VIDEO_ROOT, with files beside it that must never be served."""
    settings.DEMO_VIDEO_ROOT = tmp_path / "video"
    folder = settings.DEMO_VIDEO_ROOT / "live3"
    folder.mkdir(parents=True)
    (folder / "live.m3u8").write_text(PLAYLIST)
    (folder / "segment-1795870552.ts").write_bytes(b"\x47" + bytes(187))  # an MPEG-TS packet
    (folder / "still.jpg").write_bytes(JPEG)
    for name in ("caption.txt", "encoder.log", "live.m3u8.tmp", "segment-1795870553.ts.tmp", "still.jpg.tmp"):
        (folder / name).write_text(SECRET)
    (settings.DEMO_VIDEO_ROOT / "live.m3u8").write_text(SECRET)  # in the root, no table's
    (tmp_path / "live.m3u8").write_text(SECRET)  # outside the root
    return folder


def test_the_playlist_segments_and_still_are_served_with_their_types_the_changing_ones_never_cached(client, stream):
    playlist = client.get("/video/live3/live.m3u8")
    assert playlist.status_code == 200
    assert playlist["Content-Type"] == "application/vnd.apple.mpegurl"
    assert playlist["Cache-Control"] == "no-store"
    assert playlist.content == PLAYLIST.encode()
    segment = client.get("/video/live3/segment-1795870552.ts")
    assert segment.status_code == 200
    assert (segment["Content-Type"], segment["Cache-Control"]) == ("video/mp2t", "max-age=60")
    assert segment["X-Content-Type-Options"] == "nosniff"
    assert segment.content == b"\x47" + bytes(187)
    still = client.get("/video/live3/still.jpg")
    assert (still.status_code, still["Content-Type"], still["Cache-Control"]) == (200, "image/jpeg", "no-store")
    assert still["X-Content-Type-Options"] == "nosniff" and still.content == JPEG
    head = client.head("/video/live3/live.m3u8")  # a player or a CDN asking what is there
    assert (head.status_code, head["Content-Type"], head.content) == (200, "application/vnd.apple.mpegurl", b"")


@pytest.mark.parametrize(
    "path",
    [
        "/video/live3/caption.txt",
        "/video/live3/encoder.log",
        "/video/live3/live.m3u8.tmp",
        "/video/live3/segment-1795870553.ts.tmp",
        "/video/live3/still.jpg.tmp",
        "/video/live3/still.jpeg",
        "/video/live3/../still.jpg",
        "/video/live3/../live.m3u8",
        "/video/live3/..%2Flive.m3u8",
        "/video/live3/%2e%2e%2flive.m3u8",
        "/video/live3/..%5Clive.m3u8",
        "/video/..%2Flive.m3u8",
        "/video/%2e%2e/live.m3u8",
        "/video/live3%2F..%2F../live.m3u8",
        "/video/live3/..%2F..%2Flive.m3u8",
        "/video//live.m3u8",
        "/video/live3/%00live.m3u8",
        "/video/live3/live.m3u8%00",
    ],
)
def test_nothing_but_a_streams_own_files_is_served(client, stream, path):
    response = client.get(path)
    assert response.status_code == 404
    assert SECRET.encode() not in response.content


@pytest.mark.parametrize(
    ("code", "name"), [("..", "live.m3u8"), ("live3/..", "live.m3u8"), (".", "live.m3u8"), ("live3", "../live.m3u8")]
)
def test_the_view_itself_keeps_to_the_tables_folder(rf, stream, code, name):
    with pytest.raises(Http404):
        video_file(rf.get("/"), code=code, name=name)


def test_a_missing_file_folder_or_root_is_a_404(client, stream, settings):
    assert client.get("/video/live3/segment-1.ts").status_code == 404  # deleted by the encoder meanwhile
    assert client.get("/video/live4/live.m3u8").status_code == 404  # no stream for that table
    settings.DEMO_VIDEO_ROOT = stream.parent.parent / "none"
    assert client.get("/video/live3/live.m3u8").status_code == 404


def test_the_stream_is_only_read(client, stream):
    assert client.post("/video/live3/live.m3u8").status_code == 405
    assert (stream / "live.m3u8").read_text() == PLAYLIST


# --- The encoders: manage.py serve --demo-video ------------------------------------------------------------


@pytest.fixture
def tables(pit_boss) -> dict[str, Table]:
    """Three demo dealer tables, b showing a studio's stream a pit boss set."""
    made = {code: table_create(code=code, name=f"Live {code}", actor=pit_boss, dealing_mode="dealer") for code in "abc"}
    table_rules_update(table=made["b"], actor=pit_boss, changes={"video_url": STUDIO}, reason="the studio's camera")
    return made


def video_urls() -> dict[str, str]:
    return dict(Table.objects.filter(code__in="abc").values_list("code", "video_url"))


@pytest.fixture
def on_a_developers_machine(settings) -> None:
    """The embedded default, as scripts/run.sh serves with --demo-video (the PostgreSQL run sets REDIS_URL)."""
    settings.PRODUCTION = False
    settings.REDIS_URL = ""


def no_encoder(*args, **kwargs):
    raise AssertionError("an encoder was started")


@pytest.mark.parametrize("deployment", [{"PRODUCTION": True}, {"REDIS_URL": "redis://127.0.0.1:6379/0"}])
def test_never_in_a_deployment(tables, settings, monkeypatch, deployment):
    for name, value in deployment.items():
        setattr(settings, name, value)
    monkeypatch.setattr(subprocess, "Popen", no_encoder)
    said = []
    assert demo_video_start(codes=["a", "b"], say=said.append) is None
    assert video_urls() == {"a": "", "b": STUDIO, "c": ""}
    assert said == [
        "No demo video: PRODUCTION or REDIS_URL is set (a table's video is its studio's stream, docs/live.md)"
    ]


@pytest.mark.usefixtures("on_a_developers_machine")
def test_without_ffmpeg_a_table_left_on_its_test_stream_shows_no_video(tables, pit_boss, monkeypatch):
    table_rules_update(table=tables["a"], actor=pit_boss, changes={"video_url": "/video/a/live.m3u8"}, reason="x")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(subprocess, "Popen", no_encoder)
    said = []
    assert demo_video_start(codes=["a", "b"], say=said.append) is None
    assert video_urls() == {"a": "", "b": STUDIO, "c": ""}  # the studio's stream is the pit boss's, not the demo's
    assert "ffmpeg is not installed" in said[0]


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="needs ffmpeg (Debian: apt-get install ffmpeg)")
@pytest.mark.usefixtures("on_a_developers_machine")
def test_the_test_stream_plays_while_the_server_runs_and_goes_with_it(tables, pit_boss, settings, tmp_path, client):
    settings.DEMO_VIDEO_ROOT = tmp_path / "video"
    said = []
    video = demo_video_start(codes=["a", "b", "c"], say=said.append)
    try:
        assert video_urls() == {"a": "/video/a/live.m3u8", "b": STUDIO, "c": "/video/c/live.m3u8"}  # b's stays
        assert sorted(video.encoders) == ["a", "c"]
        assert AuditLog.objects.filter(action="rules_changed", reason=demo_video.REASON).count() == 2
        deadline = time.monotonic() + 20
        while (playlist := client.get("/video/a/live.m3u8")).status_code != 200:
            assert time.monotonic() < deadline, "no playlist in 20 s"
            time.sleep(0.2)
        segment = next(line for line in playlist.content.decode().splitlines() if line.endswith(".ts"))
        assert client.get(f"/video/a/{segment}")["Content-Type"] == "video/mp2t"
        while (still := client.get("/video/a/still.jpg")).status_code != 200:  # the first within a second or so
            assert time.monotonic() < deadline, "no still in 20 s"
            time.sleep(0.2)
        assert still["Content-Type"] == "image/jpeg" and still.content.startswith(b"\xff\xd8")
        # Meanwhile a pit boss points c at its studio's camera: the server's end leaves it there.
        table_rules_update(table=tables["c"], actor=pit_boss, changes={"video_url": STUDIO}, reason="camera")
    finally:
        video.stop()
    assert all(encoder.poll() is not None for encoder in video.encoders.values())
    assert video_urls() == {"a": "", "b": STUDIO, "c": STUDIO}
    assert not (tmp_path / "video" / "a").exists()
    assert said == ["Demo video: a live test stream at a, c"]
