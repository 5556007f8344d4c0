/**
 * A dealer table's live video (docs/ui.md, Live video): the HLS stream the pit boss set, played muted
 * (browsers autoplay nothing else) by hls.js where Media Source Extensions exist, natively otherwise.
 * It never holds the game up: an error or a stall shows "Video unavailable" and the stream is tried
 * again, with a growing delay, until it plays again.
 */

const STALL_SECONDS = 6; // no progress this long while it should play: the stream is down
const RECOVERED_SECONDS = 4; // after a failure, this much steady play (more than a stale playlist holds)
const RETRY_SECONDS = [1, 2, 4, 8, 10]; // then every 10 s

export class TableVideo {
  /** `box`: the stage's [data-video], with the stream's URL and the origin the page's CSP allows. */
  constructor(box) {
    this.box = box;
    this.stage = box.closest(".stage");
    this.muted = true; // until a gesture and the player's sound allow it
    this.allowedOrigin = box.dataset.videoOrigin; // the page's CSP lets the media come from it only
    this.hlsUrl = box.dataset.hlsUrl;
    this.url = "";
    this.failures = 0;
    this.hls = null;
    this.video = null;
    this.status = null;
    this.retryTimer = null;
    this.watchdog = null;
    this.active = false;
    this.show(box.dataset.videoUrl ?? "");
  }

  /** Play this stream (an empty URL: no video, the stage as on any table). */
  show(url) {
    if (url === this.url) return;
    this.url = url;
    this.box.dataset.videoUrl = url;
    this.stop();
    this.failures = 0;
    const on = Boolean(url);
    this.box.hidden = !on;
    this.stage.classList.toggle("stage--video", on);
    if (!on) {
      this.box.replaceChildren();
      this.video = null;
      return;
    }
    this.build();
    if (new URL(url, location.href).origin !== this.allowedOrigin) {
      // A stream from another origin than the page was drawn for: its CSP would refuse it.
      this.setState("unavailable", gettext("The table's video moved: reload the page to watch it"));
      return;
    }
    this.start();
  }

  /** Called from a user gesture (the Sound button, a first tap): only then may a video play aloud. */
  setSound(on) {
    this.muted = !on;
    if (this.video) this.video.muted = this.muted;
  }

  build() {
    const video = document.createElement("video");
    video.className = "video-player";
    video.muted = this.muted; // a new stream keeps the sound the player gave the last
    video.autoplay = true;
    video.playsInline = true;
    video.disablePictureInPicture = true;
    video.setAttribute("aria-label", gettext("The dealer's live video"));
    video.title = gettext("Click for full screen");
    video.addEventListener("click", () => {
      if (video.paused) video.play().catch(() => {}); // where autoplay was refused, a tap starts it
      this.toggleFullscreen();
    });
    video.addEventListener("error", () => this.fail());
    video.addEventListener("ended", () => this.fail()); // a live stream that ends has stopped
    const status = document.createElement("p");
    status.className = "video-status";
    status.dataset.videoStatus = "";
    status.setAttribute("role", "status");
    this.box.replaceChildren(video, status);
    this.video = video;
    this.status = status;
  }

  toggleFullscreen() {
    if (document.fullscreenElement) document.exitFullscreen();
    else this.stage.requestFullscreen?.();
  }

  setState(state, text = "") {
    this.box.dataset.state = state;
    this.status.textContent = text;
  }

  async start() {
    const url = this.url;
    const video = this.video;
    this.active = true;
    if (!this.failures) this.setState("loading"); // after a failure, "unavailable" stays until it plays again
    if ("MediaSource" in window || "ManagedMediaSource" in window) {
      const { default: Hls } = await import(this.hlsUrl).catch(() => ({})); // none: the native player tries
      if (url !== this.url) return;
      if (Hls?.isSupported()) {
        // No worker: the page's CSP allows none (transmuxing a 1 s segment on the page's thread is cheap).
        this.hls = new Hls({ enableWorker: false, lowLatencyMode: true, backBufferLength: 10 });
        this.hls.on(Hls.Events.ERROR, (_event, data) => {
          if (data.fatal) this.fail();
        });
        this.hls.loadSource(url);
        this.hls.attachMedia(video);
      }
    }
    if (!this.hls) video.src = url; // Safari, iOS: HLS natively
    video.play().catch(() => {}); // refused (no gesture, unmuted) or interrupted: the watchdog judges
    this.watch();
  }

  /** Judge the video by its progress: steady play is "playing", none for STALL_SECONDS a failure. */
  watch() {
    const video = this.video;
    const needed = this.failures ? RECOVERED_SECONDS : 0.2;
    let last = video.currentTime;
    let stillSince = performance.now();
    let playedFrom = null;
    this.watchdog = setInterval(() => {
      const now = performance.now();
      if (video.paused) {
        stillSince = now; // paused by the browser (off screen, power saving) or refused autoplay: no failure
      } else if (video.currentTime !== last) {
        last = video.currentTime;
        stillSince = now;
        playedFrom ??= video.currentTime;
        if (this.box.dataset.state !== "playing" && video.currentTime - playedFrom >= needed) {
          this.failures = 0;
          this.setState("playing");
        }
      } else if (now - stillSince > STALL_SECONDS * 1000) {
        this.fail();
      } else if (now - stillSince > 1000) {
        playedFrom = null; // progress must be steady to count as recovered
      }
    }, 250);
  }

  /** The stream failed or stalled: say so, and try again later (the game goes on meanwhile). */
  fail() {
    if (!this.active) return;
    this.stop();
    this.setState("unavailable", gettext("Video unavailable — the game goes on"));
    const delay = RETRY_SECONDS[Math.min(this.failures, RETRY_SECONDS.length - 1)];
    this.failures += 1;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.start();
    }, delay * 1000);
  }

  stop() {
    this.active = false;
    clearInterval(this.watchdog);
    clearTimeout(this.retryTimer);
    this.watchdog = null;
    this.retryTimer = null;
    this.hls?.destroy();
    this.hls = null;
    if (this.video) {
      this.video.removeAttribute("src");
      this.video.load();
    }
  }
}
