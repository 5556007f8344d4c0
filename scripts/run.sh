#!/usr/bin/env bash
# Run the platform: virtualenv, install, migrate, demo data, then the ASGI server with
# demo tables that deal by themselves. With REDIS_URL set, honcho runs every process of
# the Procfile (web, a Celery worker per queue: settlement, webhooks, wallet, reports; beat; table loops)
# instead. With REDIS_URL or PRODUCTION set no demo data is loaded (its users' password is public).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
# On PostgreSQL, as the tables' owner (DATABASE_MIGRATE_URL), which then grants the runtime role (DATABASE_URL)
# what every process below needs; they connect as the runtime role and never see the owner's URL, which
# code run in any of them could use to disable the ledger's guards (README: Database roles).
if [[ ${DATABASE_URL:-} == postgres* && -z ${DATABASE_MIGRATE_URL:-} ]]; then
  echo "Warning: DATABASE_MIGRATE_URL is not set: the platform connects as the tables' owner and could disable the ledger's guards" >&2
fi
.venv/bin/python manage.py migrate --noinput
unset DATABASE_MIGRATE_URL
.venv/bin/python manage.py collectstatic --noinput --verbosity 0
.venv/bin/python manage.py demo_data --only-local
host=${HOST:-127.0.0.1}
port=${PORT:-8000}
if [ -n "${REDIS_URL:-}" ]; then
  # Every process counts its metrics in files there; /metrics adds them up (kernel.metrics).
  export PROMETHEUS_MULTIPROC_DIR=${PROMETHEUS_MULTIPROC_DIR:-$PWD/var/metrics}
  rm -rf "$PROMETHEUS_MULTIPROC_DIR" && mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
  echo "Punto is starting on http://$host:$port/ (admin: http://$host:$port/admin/, metrics for staff: /metrics)"
  exec .venv/bin/honcho start
fi
# --demo-video: with ffmpeg, a live test stream on each demo dealer table (casino/management/demo_video.py).
exec .venv/bin/python manage.py serve --host "$host" --port "$port" --with-tables --demo-video
