"""The bed's hosts and their processes: PostgreSQL (its own cluster, ``initdb``) and Redis on ``db``, the
``Procfile``'s ``web`` on ``web1`` and ``web2``, ``tables`` on ``loop1`` and ``loop2``, ``worker`` and
``beat`` on ``worker``, HAProxy with ``deploy/haproxy.cfg`` on ``lb``. Run from the ``client`` namespace:
each process is started with ``ip netns exec`` in its host's, in a process group of its own (a host killed is
its group killed), its output appended to ``/tmp/punto-cluster/logs/<host>.log``.
"""

from __future__ import annotations

import base64
import contextlib
import os
import secrets
import signal
import socket
import subprocess
import time
import urllib.request

from bench.cluster.network import HOSTS, WORK, namespace, postgres_bin
from bench.common import ROOT
from deploy.drain import admin_command

PUBLIC_NAME = "punto.test"
LB = HOSTS["lb"]
DATABASE = "punto"
PG_MAX_CONNECTIONS = 300  # a restored copy must allow as many (restore.py)
PG_PORT, REDIS_PORT, WEB_PORT = 5432, 6379, 8000  # each in its host's own namespace
ADMIN_SOCKET = WORK / "haproxy" / "admin.sock"
CERTIFICATE = WORK / "haproxy" / "punto.pem"
MAXCONN = 8000  # the balancer's, in the bed: 2 connections a player


def app_env(*, web_concurrency: int | None) -> dict[str, str]:
    """Every platform process's environment, as docs/deployment.md says (PRODUCTION behind the balancer); the
    web hosts' uvicorn workers and database pools the `Procfile`'s and the settings' defaults unless told."""
    db = HOSTS["db"]
    env = {
        "PATH": os.environ["PATH"],
        "PRODUCTION": "1",
        "SECRET_KEY": secrets.token_urlsafe(48),
        "ENCRYPTION_KEY": base64.urlsafe_b64encode(secrets.token_bytes(32)).decode(),
        "DATABASE_URL": f"postgres://punto_app@{db}:{PG_PORT}/{DATABASE}",
        "REDIS_URL": f"redis://{HOSTS['redis']}:{REDIS_PORT}/0",
        "ALLOWED_HOSTS": f"{PUBLIC_NAME},{LB}",
        "CSRF_TRUSTED_ORIGINS": f"https://{PUBLIC_NAME},https://{LB}",
        "FORWARDED_ALLOW_IPS": LB,
        "HOST": "0.0.0.0",
        "PORT": str(WEB_PORT),
        "CELERY_SETTLEMENT_CONCURRENCY": "1",
        # Every player of the bed comes from one address (the client host): the per-address socket limit
        # and the partner's rate are for the internet, not for a load generator.
        "WS_MAX_CONNECTIONS_PER_ADDRESS": "100000",
        "PARTNER_API_RATE": "1000000/min",
        "LOG_LEVEL": "WARNING",
    }
    if web_concurrency is not None:
        env["WEB_CONCURRENCY"] = str(web_concurrency)
    return env


class Process:
    """One host's process (group): started, killed, stopped, started again."""

    def __init__(
        self, host: str, command: str, env: dict[str, str], *, user: str | None = None, name: str | None = None
    ) -> None:
        self.host, self.command, self.env, self.user, self.name = host, command, env, user, name or host
        self.popen: subprocess.Popen | None = None

    def start(self) -> Process:
        log = WORK / "logs" / f"{self.name}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        prefix = ["runuser", "-u", self.user, "--"] if self.user else []
        with log.open("a") as output:
            output.write(f"--- {time.strftime('%H:%M:%S')} start: {self.command}\n")
            output.flush()
            self.popen = subprocess.Popen(
                ["ip", "netns", "exec", namespace(self.host), *prefix, "sh", "-c", self.command],
                cwd=ROOT,
                env=self.env,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self

    def send(self, number: int) -> None:
        if self.popen is not None and self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, number)

    def kill(self) -> None:
        """SIGKILL to the whole group: the host's process dies with nothing cleaned up."""
        self.send(signal.SIGKILL)
        if self.popen is not None:
            self.popen.wait()

    def stop(self, *, timeout: float = 30.0, number: int = signal.SIGTERM) -> None:
        self.send(number)
        if self.popen is None:
            return
        try:
            self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
        self.send(signal.SIGKILL)  # whatever of the group outlived its leader

    @property
    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None


def wait_for(what: str, ready, *, timeout: float = 60.0) -> float:
    """Seconds until ``ready()`` is true; SystemExit after ``timeout``."""
    start = time.monotonic()
    while not ready():
        if time.monotonic() - start > timeout:
            raise SystemExit(f"{what}: not ready after {timeout:.0f} s (logs in {WORK / 'logs'})")
        time.sleep(0.2)
    return time.monotonic() - start


def port_open(address: str, port: int) -> bool:
    try:
        with socket.create_connection((address, port), timeout=1):
            return True
    except OSError:
        return False


def postgres_init() -> Process:
    """A fresh cluster made with ``initdb`` on the db host, trusted from the bed's subnet only, its WAL archived
    (``bench/cluster/restore.py``)."""
    from bench.cluster.restore import archive_settings

    binaries, data = postgres_bin(), WORK / "pg"
    data.mkdir(parents=True)
    subprocess.run(["chown", "postgres:postgres", str(data)], check=True)
    subprocess.run(
        ["runuser", "-u", "postgres", "--", str(binaries / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust"],
        check=True,
        capture_output=True,
    )
    with (data / "pg_hba.conf").open("a") as hba:
        hba.write(f"host all all {HOSTS['db'].rpartition('.')[0]}.0/24 trust\n")
        hba.write(f"host replication postgres {HOSTS['client']}/32 trust\n")  # the base backup (restore.py)
    settings = {
        "listen_addresses": HOSTS["db"],
        "port": PG_PORT,
        "unix_socket_directories": str(data),  # never /var/run/postgresql: the machine's own server's
        "max_connections": PG_MAX_CONNECTIONS,
        "shared_buffers": "128MB",
        "autovacuum": "on",
        **archive_settings(),
    }
    options = " ".join(f"-c {name}={value}" for name, value in settings.items())
    command = f"exec {binaries / 'postgres'} -D {data} {options}"
    return Process("db", command, {"PATH": os.environ["PATH"]}, user="postgres", name="postgres")


def migrate_url() -> str:
    """The owner's URL: only ``manage.py migrate`` has it (docs/deployment.md)."""
    return f"postgres://punto_owner@{HOSTS['db']}:{PG_PORT}/{DATABASE}"


def postgres_roles() -> None:
    """The owner, the runtime role and the database, as scripts/services.sh makes them."""
    sql = f"""
        CREATE ROLE punto_owner LOGIN CREATEDB;
        CREATE ROLE punto_app LOGIN;
        GRANT SET ON PARAMETER session_replication_role TO punto_owner;
        CREATE DATABASE {DATABASE} OWNER punto_owner;
        REVOKE TEMPORARY ON DATABASE {DATABASE} FROM PUBLIC, punto_app;
        GRANT pg_read_all_stats TO punto_app;
    """
    subprocess.run(
        ["psql", "-h", HOSTS["db"], "-U", "postgres", "-v", "ON_ERROR_STOP=1", "-q"],
        input=sql,
        text=True,
        check=True,
        capture_output=True,
    )


def redis_process() -> Process:
    options = f"--bind {HOSTS['redis']} --port {REDIS_PORT} --save '' --appendonly no --protected-mode no --dir {WORK}"
    command = f"exec redis-server {options}"
    return Process("redis", command, {"PATH": os.environ["PATH"]}, name="redis")


def haproxy_process() -> Process:
    """``deploy/haproxy.cfg`` as shipped, but its runtime API's socket in the bed's directory (the machine's
    /run/haproxy is not the bed's), with a self-signed certificate for the public name and the balancer's
    address."""
    CERTIFICATE.parent.mkdir(parents=True, exist_ok=True)
    key, cert = CERTIFICATE.with_suffix(".key"), CERTIFICATE.with_suffix(".crt")
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"),
            *("-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", f"/CN={PUBLIC_NAME}"),
            *("-addext", f"subjectAltName=DNS:{PUBLIC_NAME},IP:{LB}"),
        ],
        check=True,
        capture_output=True,
    )
    CERTIFICATE.write_text(cert.read_text() + key.read_text())
    config = (ROOT / "deploy" / "haproxy.cfg").read_text().replace("/run/haproxy/admin.sock", str(ADMIN_SOCKET))
    # The shipped maxconn (60,000) needs 120,000 descriptors: more than a container's hard limit may allow.
    config = config.replace("maxconn 60000", f"maxconn {MAXCONN}")
    path = CERTIFICATE.parent / "haproxy.cfg"
    path.write_text(config)
    env = {
        "PATH": os.environ["PATH"],
        "PUNTO_HOST": PUBLIC_NAME,
        "PUNTO_TLS_CERT": str(CERTIFICATE),
        "PUNTO_WEB1": f"{HOSTS['web1']}:{WEB_PORT}",
        "PUNTO_WEB2": f"{HOSTS['web2']}:{WEB_PORT}",
    }
    subprocess.run(["haproxy", "-c", "-q", "-f", str(path)], env=env, check=True)
    return Process("lb", f"exec haproxy -W -db -f {path}", env)


def haproxy_command(command: str) -> str:
    """A command to HAProxy's runtime API (a path socket: reachable from any namespace)."""
    return admin_command(command, path=str(ADMIN_SOCKET))


def balancer_states() -> dict[str, str]:
    """Each web server's state as the balancer sees it: UP, DOWN, MAINT, DRAIN..."""
    states = {}
    try:
        text = haproxy_command("show stat")
    except OSError:
        return {}
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) > 17 and fields[0] == "web" and fields[1] in ("web1", "web2"):
            states[fields[1]] = fields[17]
    return states


def web_healthy(host: str) -> bool:
    request = urllib.request.Request(f"http://{HOSTS[host]}:{WEB_PORT}/healthz", headers={"Host": PUBLIC_NAME})
    try:
        return urllib.request.urlopen(request, timeout=2).status == 200
    except OSError:
        return False


def platform(*, env: dict[str, str]) -> dict[str, Process]:
    """The platform's processes by host (not started), each with ``env`` (``app_env``: one SECRET_KEY for all),
    each started as an operator's host starts it: ``deploy/role NAME``."""
    worker_env = {**env, "BEAT_SCHEDULE_FILE": str(WORK / "beat")}
    return {
        "web1": Process("web1", "exec deploy/role web", env),
        "web2": Process("web2", "exec deploy/role web", env),
        "loop1": Process("loop1", "exec deploy/role tables", env),
        "loop2": Process("loop2", "exec deploy/role tables", env),
        "worker": Process("worker", "deploy/role worker & deploy/role beat & wait", worker_env),
    }
