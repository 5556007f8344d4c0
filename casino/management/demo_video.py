"""The demo's live video (``manage.py serve --demo-video``, which scripts/run.sh runs; docs/live.md, Live video).

For each demo dealer table ffmpeg encodes a test picture in real time (the felt's green, the table's name, a
running clock) to low-latency HLS under ``DEMO_VIDEO_ROOT/<code>/``, with a JPEG still of it every few seconds beside
it (the lobby's card shows it), which the site serves on its own origin
(``casino.players.video``), and the table's ``video_url`` points at it while the server runs. The encoders are the
server's children: stopped with it, and sent SIGTERM by the kernel should it die without stopping them (``setpriv
--pdeathsig``, Linux). Cheap on purpose: 640 x 360 at 10 frames a second of a mostly flat picture, ultrafast, no
sound (about 2 % of one core each).

Never in a deployment: with ``PRODUCTION`` or ``REDIS_URL`` set (no demo data there either) nothing starts, and the
``Procfile`` runs none of it. A table whose video a pit boss set keeps it. Without ffmpeg nothing starts and the
tables show no video.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from django.conf import settings

from casino.players.video import PLAYLIST, SEGMENTS, STILL, demo_video_path
from tables.models import Table
from tables.services import table_rules_update

CAPTION = "caption.txt"  # the table's name, read by drawtext as it is (no escaping, no expansion)
REASON = "demo video: ffmpeg's test stream (manage.py serve --demo-video)"
RESTART_SECONDS = 5.0

PICTURE = "color=c=0x0f5c41:size=640x360:rate=10"  # the felt (static/css/base.css)
PATTERN = "testsrc2=size=640x360:rate=10"  # where drawtext cannot draw (no libfreetype, no font): no caption
# In the picture's middle band: a stage wider than 16:9 crops its top and bottom (static/css/video.css, cover), the
# hands' panels cover its lower corners.
TEXT = "fontcolor={colour}:fontsize={size}:x=(w-text_w)/2:y=h*{y}"
CAPTIONED = ",".join(
    [
        f"drawtext=textfile={CAPTION}:expansion=none:font=Sans:{TEXT.format(colour='0xe6ca81', size=34, y=0.22)}",
        f"drawtext=text='%{{localtime\\:%T}}':font=Monospace:{TEXT.format(colour='white', size=48, y=0.34)}",
        f"drawtext=text='demo test stream':font=Sans:{TEXT.format(colour='0xc1d0c9', size=20, y=0.52)}",
    ]
)
# A keyframe every second (-g = the frame rate), 1 s segments, 6 in the playlist, older ones deleted; a segment is
# written as .tmp then renamed (never served half-written); numbers from the clock, so a restart reuses none.
ENCODE = [
    *("-c:v", "libx264", "-profile:v", "baseline", "-preset", "ultrafast", "-tune", "zerolatency"),
    *("-pix_fmt", "yuv420p", "-g", "10", "-keyint_min", "10", "-sc_threshold", "0", "-an"),
    *("-f", "hls", "-hls_time", "1", "-hls_list_size", "6", "-hls_start_number_source", "epoch"),
    *("-hls_flags", "delete_segments+omit_endlist+independent_segments+temp_file"),
]
STILL_SECONDS = 3
# The still: one JPEG overwritten in place, written as .tmp then renamed (never served half-written).
STILL_ENCODE = ["-q:v", "6", "-update", "1", "-atomic_writing", "1"]


def _source(ffmpeg: str) -> tuple[list[str], str]:
    """The picture's input and its filters: the captioned felt where drawtext works here (tried on one frame)."""
    felt = ["-f", "lavfi", "-i", PICTURE]
    one_frame = [*felt, "-vf", CAPTIONED, "-frames:v", "1", "-f", "null", "-"]
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / CAPTION).write_text("Punto")
        tried = subprocess.run(  # noqa: S603 (ffmpeg, our own arguments)
            [ffmpeg, "-hide_banner", "-loglevel", "error", "-nostdin", *one_frame],
            cwd=folder,
            capture_output=True,
            timeout=30,
        )
    return (felt, CAPTIONED) if tried.returncode == 0 else (["-f", "lavfi", "-i", PATTERN], "null")


class DemoVideo:
    """The tables' encoders, started again if one dies, until ``stop``."""

    def __init__(self, *, ffmpeg: str, tables: list[Table], say: Callable[[str], None]) -> None:
        setpriv = shutil.which("setpriv")
        self.prefix = [setpriv, "--pdeathsig", "TERM"] if setpriv else []
        self.ffmpeg = ffmpeg
        self.tables = tables
        self.say = say
        self.source, self.filters = _source(ffmpeg)
        self.encoders: dict[str, subprocess.Popen] = {}
        self.stopping = threading.Event()
        self.lock = threading.Lock()

    def folder(self, table: Table) -> Path:
        return Path(settings.DEMO_VIDEO_ROOT) / table.code

    def start(self) -> None:
        for table in self.tables:
            folder = self.folder(table)
            shutil.rmtree(folder, ignore_errors=True)  # a previous run's playlist would play as a stale stream
            folder.mkdir(parents=True)
            (folder / CAPTION).write_text(table.name)
            self.encoders[table.code] = self.encoder(table)
            _video_point(table=table, url=demo_video_path(code=table.code))
        threading.Thread(target=self.supervise, name="demo-video", daemon=True).start()
        self.say(f"Demo video: a live test stream at {', '.join(table.code for table in self.tables)}")

    def encoder(self, table: Table) -> subprocess.Popen:
        folder = self.folder(table)
        # One picture, two outputs: the stream, and a frame of it every STILL_SECONDS as the still.
        pictures = f"[0:v]{self.filters},split=2[live][picture];[picture]fps=1/{STILL_SECONDS}[still]"
        command = [self.ffmpeg, "-hide_banner", "-loglevel", "error", "-nostdin", "-re", *self.source]
        outputs = ["-map", "[live]", *ENCODE, "-hls_segment_filename", SEGMENTS, PLAYLIST]
        with (folder / "encoder.log").open("ab") as log:
            return subprocess.Popen(  # noqa: S603 (ffmpeg, our own arguments; the name goes in a file)
                [
                    *self.prefix,
                    *command,
                    "-filter_complex",
                    pictures,
                    *outputs,
                    "-map",
                    "[still]",
                    *STILL_ENCODE,
                    STILL,
                ],
                cwd=folder,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )

    def supervise(self) -> None:
        while not self.stopping.wait(RESTART_SECONDS):
            for table in self.tables:
                with self.lock:
                    if self.stopping.is_set() or self.encoders[table.code].poll() is None:
                        continue
                    self.say(f"Demo video: the encoder of {table.code} stopped, started again ({self.folder(table)})")
                    self.encoders[table.code] = self.encoder(table)

    def stop(self) -> None:
        """The encoders stopped, the tables' video cleared, the files removed."""
        with self.lock:
            self.stopping.set()
        for encoder in self.encoders.values():
            encoder.terminate()
        for encoder in self.encoders.values():
            try:
                encoder.wait(timeout=5)
            except subprocess.TimeoutExpired:
                encoder.kill()
                encoder.wait()
        for table in self.tables:
            shutil.rmtree(self.folder(table), ignore_errors=True)
            _video_point(table=table, url="")


def _video_point(*, table: Table, url: str) -> None:
    """The table's video set to ``url`` (its test stream, or none), unless a pit boss set another meanwhile."""
    table.refresh_from_db(fields=["video_url"])
    if table.video_url != url and table.video_url in ("", demo_video_path(code=table.code)):
        table_rules_update(table=table, actor=None, changes={"video_url": url}, reason=REASON)


def demo_video_start(*, codes: Iterable[str], say: Callable[[str], None]) -> DemoVideo | None:
    """These dealer tables' test streams started and the tables pointed at them; None where there is no ffmpeg (a
    table left pointing at a test stream by an earlier run cleared: it shows no video) or in a deployment."""
    if settings.PRODUCTION or settings.REDIS_URL:
        say("No demo video: PRODUCTION or REDIS_URL is set (a table's video is its studio's stream, docs/live.md)")
        return None
    ours = [
        table
        for table in Table.objects.filter(code__in=codes, dealing_mode=Table.DealingMode.DEALER)
        if table.video_url in ("", demo_video_path(code=table.code))
    ]
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        for table in ours:
            _video_point(table=table, url="")
        say("No demo video: ffmpeg is not installed (Debian: apt-get install ffmpeg)")
        return None
    if not ours:
        return None
    video = DemoVideo(ffmpeg=ffmpeg, tables=ours, say=say)
    video.start()
    return video
