"""The chaos scenarios, run one after the other on the running bed while the players and the partner play.
Each prints what it did and its figures; a loss (a player that could not come back, a bet left unanswered, a
table no loop took over) is a problem returned."""

from __future__ import annotations

import itertools
import signal
import time

from bench.cluster.books import TABLES, lock_holders
from bench.cluster.hosts import ADMIN_SOCKET, Process, balancer_states, haproxy_command, wait_for, web_healthy
from bench.cluster.network import partition
from bench.common import percentile
from deploy.drain import server_drain

RECONNECT_P99_LIMIT = 10.0  # seconds: a player back on a socket after its host is lost
TAKEOVER_LIMIT = 10.0  # seconds: a standing-by loop dealing a dead loop's table
DRAIN_SECONDS = 10.0  # a release lets a web host's players go over this long (deploy/drain.py, as an operator does)


class Bed:
    """What a scenario acts on: the platform's processes, the players' pipe, the problems found."""

    def __init__(self, processes: dict[str, Process], pipe) -> None:
        self.processes, self.pipe = processes, pipe
        self.problems: list[str] = []

    def window(self) -> dict:
        """The players' figures since the last call."""
        self.pipe.send("report")
        return self.pipe.recv()

    def report(self, name: str, figures: dict, *, reconnect_limit: float = RECONNECT_P99_LIMIT, **more: object) -> None:
        """Print a scenario's figures; a problem when a player could not come back, or their reconnects' p99 is
        over ``reconnect_limit`` seconds (counted from the socket's close: a service away for a while adds
        its time away)."""
        reconnects = figures["reconnects"]
        timing = (
            f"reconnects {len(reconnects)}: p50 {percentile(reconnects, 0.5):.2f} s, p99 "
            f"{percentile(reconnects, 0.99):.2f} s, max {max(reconnects):.2f} s"
            if reconnects
            else "reconnects 0"
        )
        extra = "".join(f"; {key.replace('_', ' ')} {value}" for key, value in more.items())
        print(
            f"[{name}] bets acknowledged {figures['acks']}, refused {figures['refusals'] or 'none'}, resent "
            f"{figures['resent']}, answer timeouts {figures['timeouts']}; {timing}; players who could not reconnect "
            f"{figures['gave_up']}; sockets open {figures['connected']}{extra}"
        )
        if figures["gave_up"]:
            self.problems.append(f"{name}: {figures['gave_up']} players could not reconnect")
        if reconnects and percentile(reconnects, 0.99) > reconnect_limit:
            self.problems.append(f"{name}: reconnect p99 over {reconnect_limit:g} s")

    def play(self, seconds: float) -> None:
        time.sleep(seconds)

    def web_back(self, host: str, *, drained: bool = False) -> float:
        """``host``'s web process started again and back in the balancer (made ready again if it was drained)."""
        self.processes[host].start()
        wait_for(f"{host} /healthz", lambda: web_healthy(host), timeout=90)
        if drained:
            haproxy_command(f"set server web/{host} state ready")
        return wait_for(f"{host} up at the balancer", lambda: balancer_states().get(host) == "UP", timeout=60)


def coups_held() -> int:
    from django.db import connection

    from tables.models import Coup

    connection.close()
    held = Coup.objects.filter(state=Coup.State.HELD).count()
    connection.close()
    return held


def betting_window(*, into: float = 1.5, timeout: float = 60.0) -> None:
    """Back once the players' table has been taking bets for ``into`` seconds, with as many left."""
    from datetime import timedelta

    from django.db import connection
    from django.utils import timezone

    from tables.models import Coup

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = timezone.now()
        open_since = Coup.objects.filter(
            table__code=TABLES[0], state=Coup.State.BETTING, betting_closes_at__gt=now + timedelta(seconds=into)
        ).values_list("opened_at", flat=True)
        connection.close()
        if open_since and open_since[0] and (now - open_since[0]).total_seconds() >= into:
            return
        time.sleep(0.1)


def web_killed(bed: Bed, *, seconds: float) -> None:
    """(1) web1 SIGKILLed mid-burst: its players reconnect through the balancer to web2 and resend."""
    bed.window()
    betting_window()
    before = bed.window()
    bed.processes["web1"].kill()
    killed = time.monotonic()
    down = wait_for("web1 down at the balancer", lambda: balancer_states().get("web1") != "UP", timeout=30)
    bed.play(max(seconds, 12.0))
    figures = bed.window()
    bed.report(
        "1 web1 killed",
        figures,
        bets_acknowledged_before_the_kill=before["acks"],
        balancer_marked_it_down_after=f"{down:.1f} s",
    )
    back = bed.web_back("web1")
    after = time.monotonic() - killed
    print(
        f"[1 web1 killed] web1 started again: in the balancer {after:.0f} s after the kill, {back:.1f} s after healthy"
    )


def web_cut_from_redis(bed: Bed, *, seconds: float) -> None:
    """(3) web2 cut off from Redis (a partition: packets dropped both ways): its ``/healthz`` answers 404
    (``kernel.health``), the balancer sends it no new connection, its processes let their sockets go over a few
    seconds (``kernel.socket_shedding``), its players reconnect to web1 and resend; joined again, it passes its
    checks and comes back."""
    bed.window()
    betting_window()
    before = bed.window()
    partition("web2", "redis", cut=True)
    try:
        out = wait_for("web2 out of the balancer", lambda: balancer_states().get("web2") != "UP", timeout=30)
        bed.play(max(seconds, 12.0))
        figures = bed.window()
    finally:
        partition("web2", "redis", cut=False)
    bed.report(
        "3 web2 cut off from Redis",
        figures,
        bets_acknowledged_before_the_cut=before["acks"],
        balancer_took_it_out_after=f"{out:.1f} s",
    )
    back = wait_for("web2 back in the balancer", lambda: balancer_states().get("web2") == "UP", timeout=60)
    print(f"[3 web2 cut off from Redis] joined again: back in the balancer {back:.1f} s later")
    if not figures["reconnects"]:
        bed.problems.append("3 web2 cut off from Redis: no player moved off web2 (its sockets were not closed)")


def _loop_mid_coup(holder: str, timeout: float = 120.0):
    """A coup being dealt (a card out, more to come) on a table ``holder`` deals, when there is one."""
    from django.db import connection
    from django.db.models import Count

    from tables.models import Coup

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if lock_holders().get(holder):
            coup = (
                Coup.objects.filter(table__code__in=TABLES, state=Coup.State.DEALING)
                .annotate(dealt=Count("cards"))
                .filter(dealt__gte=1, dealt__lte=3)
                .first()
            )
            if coup is not None:
                return coup
        connection.close()
        time.sleep(0.1)
    return None


def loop_killed(bed: Bed, *, seconds: float) -> None:
    """(2) loop1 SIGKILLed mid-coup: loop2 takes its tables and deals on from the database."""
    from django.db import connection

    from tables.models import Coup, DealtCard

    bed.window()
    holders = lock_holders()
    dealer = max(holders, key=holders.get) if holders else None
    coup = _loop_mid_coup(dealer) if dealer else None
    if coup is None:
        bed.problems.append(f"2 loop killed: no coup being dealt by a loop ({holders})")
        return
    cards = DealtCard.objects.filter(coup=coup).count()
    standby = "loop2" if dealer == "loop1" else "loop1"
    bed.processes[dealer].kill()
    killed = time.monotonic()

    def dealt_on() -> bool:
        connection.close()
        return (
            DealtCard.objects.filter(coup=coup).count() > cards
            or Coup.objects.get(pk=coup.pk).state != Coup.State.DEALING
        )

    takeover = wait_for("the standing-by loop dealing on", dealt_on, timeout=60)
    wait_for(
        f"{coup.round_id} resolved",
        lambda: Coup.objects.get(pk=coup.pk).state in ("resolved", "settled", "void"),
        timeout=60,
    )
    after = lock_holders()
    bed.play(seconds)
    figures = bed.window()
    state = Coup.objects.get(pk=coup.pk).state
    bed.report(
        f"2 {dealer} killed",
        figures,
        killed_at=f"coup {coup.round_id} after card {cards}",
        next_step_by_the_other_loop_after=f"{takeover:.1f} s",
        tables_now_dealt_by=after,
        that_coup=state,
        coups_held=coups_held(),
    )
    if after.get(standby, 0) != len(TABLES):
        bed.problems.append(f"2 loop killed: {standby} holds {after.get(standby, 0)} of {len(TABLES)} tables")
    if takeover > TAKEOVER_LIMIT:
        bed.problems.append(f"2 loop killed: the next card came {takeover:.1f} s after the kill")
    bed.processes[dealer].start()
    print(f"[2 {dealer} killed] {dealer} started again: stands by ({time.monotonic() - killed:.0f} s after the kill)")


def rolling_restart(bed: Bed, *, seconds: float) -> None:
    """(6) A release: web1, web2 (drained: their players let go over ``DRAIN_SECONDS``, then SIGTERM), loop1, loop2,
    worker (SIGTERM) restarted one by one."""
    bed.window()
    for host in ("web1", "web2", "loop1", "loop2", "worker"):
        if host.startswith("web"):
            count = server_drain(backend="web", server=host, over=DRAIN_SECONDS, path=str(ADMIN_SOCKET))
            print(f"[6 rolling] {host} drained: {count} sockets let go over {DRAIN_SECONDS:.0f} s")
        bed.processes[host].stop(number=signal.SIGTERM)
        if host.startswith("web"):
            bed.web_back(host, drained=True)
        else:
            bed.processes[host].start()
        bed.play(seconds / 5)
        print(f"[6 rolling] {host} restarted; tables dealt by {lock_holders()}")
    bed.report("6 rolling restart", bed.window(), coups_held=coups_held())


def _until(bed: Bed, windows: list[dict], met, *, timeout: float = 90.0) -> float | None:
    """Seconds until the players' latest window ``met`` the condition (their windows kept in ``windows``)."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        bed.play(0.5)
        windows.append(bed.window())
        if met(windows[-1]):
            return time.monotonic() - start
    return None


def merged(windows: list[dict]) -> dict:
    from collections import Counter

    refusals = Counter()
    for window in windows:
        refusals.update(window["refusals"])
    total = {key: sum(window[key] for window in windows) for key in ("acks", "resent", "timeouts", "gave_up")}
    reconnects = [seconds for window in windows for seconds in window["reconnects"]]
    return {**total, "refusals": dict(refusals), "reconnects": reconnects, "connected": windows[-1]["connected"]}


def _service_restarted(bed: Bed, name: str, host: str, *, down: float) -> None:
    windows = [bed.window()]
    betting_window()
    windows.append(bed.window())
    bed.processes[host].stop(number=signal.SIGINT if host == "postgres" else signal.SIGTERM, timeout=20)
    bed.play(down)
    windows.append(bed.window())
    bed.processes[host].start()
    resumed = _until(bed, windows, lambda window: window["acks"])
    # Every web process lets its sockets go once it finds Redis lost (kernel/socket_shedding.py; PostgreSQL away
    # from every host keeps them in: kernel/health.py): the players are counted back (and their reconnects
    # reported) before the scenario ends.
    back = _until(bed, windows, lambda window: window["connected"] >= windows[0]["connected"])
    bed.play(5)
    windows.append(bed.window())
    bed.report(
        name,
        merged(windows),
        reconnect_limit=RECONNECT_P99_LIMIT + down,
        down_for=f"{down:g} s",
        bets_acknowledged_again_after=f"{resumed:.1f} s" if resumed is not None else "never",
        every_socket_back_after=f"{back:.1f} s more" if back is not None else "never",
        tables_dealt_by=lock_holders(),
        coups_held=coups_held(),
    )
    if resumed is None:
        bed.problems.append(f"{name}: no bet acknowledged in the 90 s after {host} came back")
    if back is None:
        bed.problems.append(f"{name}: players' sockets not all back in the 90 s after bets resumed")


def redis_restarted(bed: Bed, *, seconds: float) -> None:
    """(4) Redis stopped mid-betting and started again (empty: no persistence in the bed)."""
    _service_restarted(bed, "4 Redis restarted", "redis", down=3.0)


def postgres_restarted(bed: Bed, *, seconds: float) -> None:
    """(5) PostgreSQL stopped (fast shutdown) mid-betting and started again."""
    _service_restarted(bed, "5 PostgreSQL restarted", "postgres", down=5.0)


def worker_down(bed: Bed, *, seconds: float) -> None:
    """(7) The worker host (settlement worker and beat) down a minute: settlement catches up, in order."""
    from django.db import connection
    from django.utils import timezone

    from tables.models import Coup

    bed.window()
    killed_at = timezone.now()
    bed.processes["worker"].kill()
    bed.play(60.0)
    connection.close()
    waiting = Coup.objects.filter(state=Coup.State.RESOLVED).count()
    bed.processes["worker"].start()

    def caught_up() -> bool:
        connection.close()
        return not Coup.objects.filter(state=Coup.State.RESOLVED).exists()

    caught = wait_for("settlement catching up", caught_up, timeout=120)
    out_of_order = []
    for code in TABLES:
        settled = list(
            Coup.objects.filter(table__code=code, settled_at__isnull=False, resolved_at__gte=killed_at)
            .order_by("resolved_at")
            .values_list("round_id", "settled_at")
        )
        out_of_order += [first for (first, at), (_, next_at) in itertools.pairwise(settled) if at > next_at]
    bed.report(
        "7 worker down 60 s",
        bed.window(),
        coups_waiting_for_settlement_when_it_came_back=waiting,
        all_settled_after=f"{caught:.1f} s",
        settled_out_of_order=out_of_order or "none",
    )
    if out_of_order:
        bed.problems.append(f"7 worker down: coups settled out of order: {out_of_order[:5]}")
