#!/usr/bin/env bash
# Debian's Chromium for the browser tests (Playwright drives /usr/bin/chromium; it never downloads a browser),
# Debian's ffmpeg, which makes the live video stream of tests/browser/test_video.py, and a font with Chinese
# characters (the pages in Simplified Chinese: tests/browser/test_languages.py and the docs' screenshots).
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/ffmpeg ] || missing+=(ffmpeg)
[ -d /usr/share/fonts/opentype/noto ] || missing+=(fonts-noto-cjk)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install Debian's ${missing[*]} package(s) (apt-get install -y ${missing[*]}) to run the browser tests" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
