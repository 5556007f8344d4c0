"""``deploy/drain.py`` against a stand-in for HAProxy's runtime API: what it asks, in what order."""

import socket
import threading

import pytest

from deploy.drain import COMMANDS_PER_LINE, SLICE_SECONDS, server_drain

WEB1 = [f"0x1{n:03x}" for n in range(7)]
WEB2 = [f"0x2{n:03x}" for n in range(25)]
FRESH = "0x2fff"  # web2's request in flight (or a socket opened a moment before the drain)


class _RuntimeApi:
    """A Unix socket answering as HAProxy does, one line of commands (``;``-joined) a connection; its sessions
    (id: server, age) change as they are shut."""

    def __init__(self, path: str, *, set_answer: str = "") -> None:
        self.lines: list[str] = []
        self.set_answer = set_answer
        self.sessions = dict.fromkeys(WEB1, ("web1", "3m5s")) | dict.fromkeys(WEB2, ("web2", "1h2m"))
        self.sessions[FRESH] = ("web2", "2s")
        self.after_shutdowns = None  # called after each line of shutdowns (a test's change of the sessions)
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(path)
        self.listener.listen(8)
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with conn:
                line = conn.makefile().readline().strip()
                self.lines.append(line)
                conn.sendall(self._answer(line).encode())

    def _answer(self, line: str) -> str:
        if line == "show sess":
            rows = [
                f"{id_}: proto=tcpv4 src=10.0.0.9:4{id_[-3:]} fe=public be=web srv={server} ts=00 age={age} calls=9"
                for id_, (server, age) in self.sessions.items()
            ]
            rows.append("0x3000: proto=unix_stream src=unix:1 fe=GLOBAL be=<NONE> srv=<none> ts=00 age=0s")
            return "\n".join(rows) + "\n\n"
        if line.startswith("set server"):
            return self.set_answer + "\n"
        for command in line.split("; "):
            self.sessions.pop(command.removeprefix("shutdown session "), None)
        if self.after_shutdowns is not None:
            self.after_shutdowns(self)
        return "\n"


@pytest.fixture
def api_path(tmp_path):
    return str(tmp_path / "admin.sock")


def shut(api: _RuntimeApi) -> list[list[str]]:
    """The ids each line of shutdowns named."""
    lines = [line for line in api.lines if line.startswith("shutdown session ")]
    return [[command.removeprefix("shutdown session ") for command in line.split("; ")] for line in lines]


def test_a_drained_server_lets_each_of_its_sockets_go_once_spread_over_the_time_given(api_path):
    api = _RuntimeApi(api_path)
    slept = []
    count = server_drain(backend="web", server="web2", over=2.0, path=api_path, sleep=slept.append)
    assert count == len(WEB2)
    assert api.lines[:2] == ["set server web/web2 state drain", "show sess"]
    slices = shut(api)
    assert sorted(id_ for line in slices for id_ in line) == sorted(WEB2)  # once each; none of web1's
    assert len(slices) == 2.0 / SLICE_SECONDS == len(slept)  # a slice each half second
    assert max(map(len, slices)) - min(map(len, slices)) <= len(WEB2) // len(slices)
    assert FRESH in api.sessions and not any("shutdown sessions" in line for line in api.lines)  # left to finish


def test_an_id_freed_meanwhile_and_now_another_servers_stream_is_not_shut(api_path):
    api = _RuntimeApi(api_path)

    def reused(api: _RuntimeApi) -> None:  # a web2 socket its player closed; HAProxy gives its id to web1's
        if len(shut(api)) == 1:
            left = [id_ for id_, (server, _) in api.sessions.items() if server == "web2" and id_ != FRESH]
            api.sessions[left[-1]] = ("web1", "0s")

    api.after_shutdowns = reused
    server_drain(backend="web", server="web2", over=2.0, path=api_path, sleep=lambda seconds: None)
    assert sum(server == "web1" for server, _ in api.sessions.values()) == len(WEB1) + 1  # every web1 stream kept
    assert [id_ for id_, (server, _) in api.sessions.items() if server == "web2"] == [FRESH]


def test_a_drain_haproxy_refuses_shuts_nothing(api_path):
    api = _RuntimeApi(api_path, set_answer="No such server.")
    with pytest.raises(SystemExit, match="web/web9: No such server"):
        server_drain(backend="web", server="web9", over=2.0, path=api_path, sleep=lambda seconds: None)
    assert api.lines == ["set server web/web9 state drain"]


def test_no_time_given_lets_every_socket_go_at_once_in_lines_haproxy_takes(api_path, monkeypatch):
    monkeypatch.setattr("deploy.drain.COMMANDS_PER_LINE", 10)
    api = _RuntimeApi(api_path)
    server_drain(backend="web", server="web2", over=0, path=api_path, sleep=lambda seconds: None)
    assert [len(line) for line in shut(api)] == [10, 10, 5] and COMMANDS_PER_LINE == 100
    assert list(api.sessions) == [*WEB1, FRESH]


@pytest.mark.parametrize(
    "server", ["web1; shutdown sessions server web/web2", "web1\nset server web/web2 state maint", ""]
)
def test_a_name_that_is_not_a_name_is_refused_before_anything_is_sent(api_path, server):
    api = _RuntimeApi(api_path)
    with pytest.raises(SystemExit, match="is not a backend or server name"):
        server_drain(backend="web", server=server, over=2.0, path=api_path, sleep=lambda seconds: None)
    assert api.lines == []
