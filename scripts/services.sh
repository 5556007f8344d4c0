#!/usr/bin/env bash
# Make sure the real components are up: PostgreSQL on 127.0.0.1:5432 and Redis on
# 127.0.0.1:6379 (started here if they are down), and the database named by $1 exists, owned by the
# role punto_owner (it migrates: DATABASE_MIGRATE_URL); the platform connects as punto_app (DATABASE_URL),
# which owns nothing (kernel/database_roles.py). Both log in without a password here (trust on 127.0.0.1);
# production gives each its own. Run again, it changes nothing.
set -euo pipefail
database=${1:-punto}
owner=punto_owner
runtime=punto_app
if ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
  for _ in $(seq 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
  for _ in $(seq 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
fi
# The owner may create databases (the tests' own) and, from PostgreSQL 15, write as a replica: the tests
# empty the append-only tables that way. The runtime role gets neither, nor temporary tables (a session's own
# would shadow a table a guard's trigger reads; migrate revokes them in the tests' databases too); it may read
# every session's transaction start (pg_read_all_stats): the hourly roots' sealer waits for transactions
# open since before the hour's end, whatever role opened them (wagering/ledger_roots.py).
psql -h 127.0.0.1 -U postgres -v ON_ERROR_STOP=1 -q -v owner="$owner" -v runtime="$runtime" -v database="$database" <<'SQL'
SELECT format('CREATE ROLE %I LOGIN CREATEDB', :'owner') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'owner')
\gexec
SELECT format('CREATE ROLE %I LOGIN', :'runtime') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'runtime')
\gexec
SELECT format('GRANT SET ON PARAMETER session_replication_role TO %I', :'owner')
WHERE current_setting('server_version_num')::int >= 150000
\gexec
SELECT format('CREATE DATABASE %I OWNER %I', :'database', :'owner')
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'database')
\gexec
SELECT format('ALTER DATABASE %I OWNER TO %I', :'database', :'owner')
\gexec
SELECT format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC, %I', :'database', :'runtime')
\gexec
SELECT format('GRANT pg_read_all_stats TO %I', :'runtime') WHERE NOT pg_has_role(:'runtime', 'pg_read_all_stats', 'MEMBER')
\gexec
SQL
# A database migrated before by another role (postgres): its tables and functions go to the owner.
psql -h 127.0.0.1 -U postgres -d "$database" -v ON_ERROR_STOP=1 -q -v owner="$owner" <<'SQL'
SELECT format('ALTER TABLE %s OWNER TO %I', c.oid::regclass, :'owner')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND pg_get_userbyid(c.relowner) <> :'owner'
\gexec
SELECT format('ALTER ROUTINE %s OWNER TO %I', p.oid::regprocedure, :'owner')
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> :'owner'
\gexec
SQL
