#!/usr/bin/env bash
# Pin every dependency, transitive ones included: resolve requirements.txt in a throw-away virtualenv
# and write what it installed to constraints.txt (scripts/bootstrap.sh installs with -c constraints.txt).
# Run it after changing requirements.txt, and commit both files.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-$(command -v python3.11 || command -v python3)}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$python" -m venv "$scratch/venv"
"$scratch/venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
grep -v '^-c ' requirements.txt > "$scratch/requirements.txt"  # resolved afresh, not from the old pins
"$scratch/venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$scratch/requirements.txt"
{
  echo "# Every installed package pinned, transitive ones included: written by scripts/lock.sh from requirements.txt."
  "$scratch/venv/bin/python" -m pip freeze --all --exclude pip --exclude setuptools --exclude wheel | sort -f
} > constraints.txt
echo "constraints.txt: $(grep -vc '^#' constraints.txt) packages pinned"
