"""A partner's seamless wallet for tests, on 127.0.0.1: balances per player, signatures checked,
transactions de-duplicated by ``transaction_id``; it can answer slowly, fail, answer garbage, refuse or
be down (``behaviour``). Every request it received is kept, with its verdict on the signature."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = "wallet-secret-for-tests-0123456789"


def signature_valid(header: str, body: bytes, secret: str = SECRET, tolerance: int = 300) -> bool:
    """The reference check of ``Punto-Signature`` (docs/api.md): the timestamp recent, the HMAC equal."""
    parts = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    if "t" not in parts or "v1" not in parts or not parts["t"].isdigit():
        return False
    if abs(time.time() - int(parts["t"])) > tolerance:
        return False
    expected = hmac.new(secret.encode(), f"{parts['t']}.".encode() + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts["v1"])


class FakeWallet:
    def __init__(self, balances: dict[str, str] | None = None) -> None:
        self.balances = {player: Decimal(amount) for player, amount in (balances or {}).items()}
        self.seen: dict[str, dict] = {}  # transaction_id -> the answer given (a retry gets it again)
        self.requests: list[tuple[str, dict, bool]] = []  # (operation, body, signature valid)
        self.behaviour = "ok"  # ok | slow | fail | garbage | blocked
        self.slow_seconds = 3.0
        self.lock = threading.Lock()
        wallet = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                status, answer = wallet.handle(self.path, raw, self.headers.get("Punto-Signature", ""))
                if answer is None:
                    return
                data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/wallet"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeWallet:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def operations(self, name: str) -> list[dict]:
        return [body for operation, body, _ in self.requests if operation == name]

    def handle(self, path: str, raw: bytes, signature: str) -> tuple[int, dict | bytes | None]:
        operation = path.rsplit("/", 1)[-1]
        body = json.loads(raw)
        valid = signature_valid(signature, raw)
        with self.lock:
            self.requests.append((operation, body, valid))
        if not valid:
            return 401, {"error": "bad_signature"}
        if self.behaviour == "slow":
            time.sleep(self.slow_seconds)
        if self.behaviour == "fail":
            return 500, {"message": "oops"}
        if self.behaviour == "garbage":
            return 200, b"<html>not json</html>"
        with self.lock:
            return self._apply(operation, body)

    def _apply(self, operation: str, body: dict) -> tuple[int, dict]:
        player = body["player_id"]
        balance = self.balances.setdefault(player, Decimal("0.00"))
        if operation == "balance":
            return 200, {"balance": str(balance), "currency": body["currency"]}
        transaction_id = body["transaction_id"]
        if transaction_id in self.seen:
            return self.seen[transaction_id]["status"], self.seen[transaction_id]["answer"]
        amount = Decimal(body["amount"])
        if operation == "debit":
            if self.behaviour == "blocked":
                return self._remember(transaction_id, 403, {"error": "player_blocked", "balance": str(balance)})
            if amount > balance:
                return self._remember(transaction_id, 402, {"error": "insufficient_funds", "balance": str(balance)})
            self.balances[player] = balance - amount
        elif operation == "credit":
            self.balances[player] = balance + amount
        elif operation == "rollback":
            rolled_back = self.seen.get(body["rolled_back_transaction_id"])
            if rolled_back is not None and rolled_back["status"] == 200 and not rolled_back.get("rolled_back"):
                self.balances[player] = balance + amount
                rolled_back["rolled_back"] = True
        return self._remember(transaction_id, 200, {"balance": str(self.balances[player])})

    def _remember(self, transaction_id: str, status: int, answer: dict) -> tuple[int, dict]:
        self.seen[transaction_id] = {"status": status, "answer": answer}
        return status, answer
