#!/usr/bin/env bash
# Debian's Chromium for the browser tests (Playwright drives /usr/bin/chromium; it never downloads a browser).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install Debian's chromium package (apt-get install -y chromium) to run the browser tests" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
