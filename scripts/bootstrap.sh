#!/usr/bin/env bash
# Create .venv with Python 3.11 and install requirements.txt, every transitive dependency pinned by
# constraints.txt, which requirements.txt names (again only when either changed). scripts/lock.sh rewrites constraints.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-$(command -v python3.11 || command -v python3)}
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
stamp=.venv/.requirements.sha256
wanted=$(cat requirements.txt constraints.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
  echo "$wanted" > "$stamp"
fi
# The front-end packages (static-vendor.lock: pinned npm tarballs, integrity checked) into static/vendor/.
.venv/bin/python scripts/vendor.py
