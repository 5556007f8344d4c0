#!/usr/bin/env bash
# Make sure the real components are up: PostgreSQL on 127.0.0.1:5432 and Redis on
# 127.0.0.1:6379 (started here if they are down), and the database named by $1 exists.
set -euo pipefail
database=${1:-punto}
if ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
  for _ in $(seq 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
  for _ in $(seq 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
fi
psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$database'" | grep -q 1 ||
  createdb -h 127.0.0.1 -U postgres "$database"
