"""The test bed's network: one Linux network namespace per host, joined by a bridge in a namespace of its own
(``punto-lan``), so that no packet of the bed crosses the machine's own namespace or its firewall (a bridge
there would pass through br_netfilter and the machine's iptables). Addresses in 10.77.0.0/24.

``network_up`` builds it, ``network_down`` removes every namespace named ``punto-*`` and every process in one
(a previous run's leftovers too), ``missing`` says why the bed cannot run here.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

PREFIX = "punto-"
LAN = f"{PREFIX}lan"
SUBNET = "10.77.0"
HOSTS = {
    "db": f"{SUBNET}.2",
    "redis": f"{SUBNET}.3",  # a host of its own, so that scenario 3 can cut a web host off from it alone
    "lb": f"{SUBNET}.10",
    "web1": f"{SUBNET}.11",
    "web2": f"{SUBNET}.12",
    "loop1": f"{SUBNET}.21",
    "loop2": f"{SUBNET}.22",
    "worker": f"{SUBNET}.31",
    "client": f"{SUBNET}.100",  # the players, the partner's server and the bed's own checks
}
WORK = Path("/tmp/punto-cluster")  # data, logs, certificate: removed with the namespaces


def namespace(host: str) -> str:
    return f"{PREFIX}{host}"


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True)


def missing() -> list[str]:
    """Why the bed cannot run on this machine (empty: it can)."""
    reasons = []
    if os.geteuid() != 0:
        reasons.append("not root (network namespaces need it)")
    for tool, package in [("ip", "iproute2"), ("haproxy", "haproxy"), ("redis-server", "redis-server")]:
        if shutil.which(tool) is None:
            reasons.append(f"no {tool} (apt-get install -y {package})")
    if shutil.which("openssl") is None:
        reasons.append("no openssl (apt-get install -y openssl)")
    if postgres_bin() is None:
        reasons.append("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (apt-get install -y postgresql)")
    if not reasons:
        probe = f"{PREFIX}probe"
        made = _ip("netns", "add", probe, check=False)
        if made.returncode != 0:
            reasons.append(f"`ip netns add` refused: {made.stderr.strip()}")
        else:
            _ip("netns", "del", probe, check=False)
    return reasons


def postgres_bin() -> Path | None:
    """The newest Debian PostgreSQL server binaries' directory."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"), key=lambda path: int(path.parts[-3]))
    return found[-1].parent if found else None


def ours() -> list[str]:
    listed = _ip("netns", "list", check=False).stdout.split()
    return [name for name in listed if name.startswith(PREFIX)]


def network_down() -> None:
    """Every process in a bed namespace killed, every bed namespace and the work directory removed."""
    names = ours()
    for name in names:
        for pid in _ip("netns", "pids", name, check=False).stdout.split():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
    if names:
        time.sleep(0.5)
    for name in names:
        _ip("netns", "del", name, check=False)
    shutil.rmtree(WORK, ignore_errors=True)


def partition(host: str, other: str, *, cut: bool) -> None:
    """``host`` and ``other`` cut off from each other (``cut``) or joined again: a blackhole route to the other's
    address in each namespace, so that packets are dropped silently both ways, as a network partition drops them,
    while every other host still reaches both."""
    for near, far in ((host, other), (other, host)):
        _ip("-n", namespace(near), "route", "add" if cut else "del", "blackhole", f"{HOSTS[far]}/32")


def network_up() -> None:
    """The namespaces, the bridge and the addresses; loopback up everywhere."""
    _ip("netns", "add", LAN)
    _ip("-n", LAN, "link", "add", "br0", "type", "bridge")
    _ip("-n", LAN, "link", "set", "br0", "up")
    _ip("-n", LAN, "link", "set", "lo", "up")
    for host, address in HOSTS.items():
        name = namespace(host)
        _ip("netns", "add", name)
        _ip("-n", LAN, "link", "add", f"to-{host}", "type", "veth", "peer", "name", "eth0", "netns", name)
        _ip("-n", LAN, "link", "set", f"to-{host}", "master", "br0", "up")
        _ip("-n", name, "addr", "add", f"{address}/24", "dev", "eth0")
        _ip("-n", name, "link", "set", "eth0", "up")
        _ip("-n", name, "link", "set", "lo", "up")
    WORK.mkdir(parents=True, exist_ok=True)
