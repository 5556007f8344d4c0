"""``deploy/drain.py`` against a stand-in for HAProxy's runtime API: what it asks, in what order."""

import socket
import threading

import pytest

from deploy.drain import SLICE_SECONDS, server_drain

WEB1 = [f"0x1{n:03x}" for n in range(7)]
WEB2 = [f"0x2{n:03x}" for n in range(25)]


def _session(id_: str, server: str) -> str:
    return f"{id_}: proto=tcpv4 src=10.0.0.9:4{id_[-3:]} fe=public be=web srv={server} ts=00 age=3m calls=9 rq[f=0]"


class _RuntimeApi:
    """A Unix socket answering as HAProxy does: one line of commands (``;``-joined) a connection."""

    def __init__(self, path: str, *, set_answer: str = "") -> None:
        self.lines: list[str] = []
        self.set_answer = set_answer
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
                if line == "show sess":
                    rows = [_session(i, "web1") for i in WEB1] + [_session(i, "web2") for i in WEB2]
                    rows.append("0x3000: proto=unix_stream src=unix:1 fe=GLOBAL be=<NONE> srv=<none> ts=00")
                    conn.sendall(("\n".join(rows) + "\n\n").encode())
                elif line.startswith("set server"):
                    conn.sendall((self.set_answer + "\n").encode())
                else:
                    conn.sendall(b"\n")


@pytest.fixture
def api_path(tmp_path):
    return str(tmp_path / "admin.sock")


def test_a_drained_server_lets_each_of_its_sessions_go_once_spread_over_the_time_given(api_path):
    api = _RuntimeApi(api_path)
    slept = []
    count = server_drain(backend="web", server="web2", over=2.0, path=api_path, sleep=slept.append)
    assert count == len(WEB2)
    assert api.lines[0] == "set server web/web2 state drain"
    assert api.lines[1] == "show sess"
    slices = [line.split("; ") for line in api.lines[2:-1]]
    shut = [command.removeprefix("shutdown session ") for piece in slices for command in piece]
    assert sorted(shut) == sorted(WEB2)  # every web2 session once, none of web1's nor the API's own
    assert len(slices) == 2.0 / SLICE_SECONDS and len(slept) == len(slices)  # a slice each half second
    assert max(len(piece) for piece in slices) - min(len(piece) for piece in slices) <= len(WEB2) // len(slices)
    assert api.lines[-1] == "shutdown sessions server web/web2"  # anything opened meanwhile, at the end


def test_a_drain_haproxy_refuses_shuts_nothing(api_path):
    api = _RuntimeApi(api_path, set_answer="No such server.")
    with pytest.raises(SystemExit, match="web/web9: No such server"):
        server_drain(backend="web", server="web9", over=2.0, path=api_path, sleep=lambda seconds: None)
    assert api.lines == ["set server web/web9 state drain"]


def test_no_time_given_lets_every_session_go_at_once(api_path):
    api = _RuntimeApi(api_path)
    server_drain(backend="web", server="web1", over=0, path=api_path, sleep=lambda seconds: None)
    assert len(api.lines) == 4 and sorted(api.lines[2].replace("shutdown session ", "").split("; ")) == WEB1


@pytest.mark.parametrize(
    "server", ["web1; shutdown sessions server web/web2", "web1\nset server web/web2 state maint", ""]
)
def test_a_name_that_is_not_a_name_is_refused_before_anything_is_sent(api_path, server):
    api = _RuntimeApi(api_path)
    with pytest.raises(SystemExit, match="is not a backend or server name"):
        server_drain(backend="web", server=server, over=2.0, path=api_path, sleep=lambda seconds: None)
    assert api.lines == []
