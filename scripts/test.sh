#!/usr/bin/env bash
# The whole test suite: lint, import contracts, Django checks, migrations up to date, pytest.
# Runs on whatever DATABASE_URL / REDIS_URL say (unset: the embedded default).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/install-browser.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/lint-imports  # the architecture's contracts: pyproject.toml [tool.importlinter]
.venv/bin/python manage.py check
.venv/bin/python manage.py makemigrations --check --dry-run >/dev/null
node --test tests/js/  # the front end's pure modules (static/js), on Node's own test runner
exec .venv/bin/pytest "$@"
