/**
 * A live feed (a table's, `/ws/tables/<code>/`, or the lobby's, `/ws/lobby/`) that reconnects by itself,
 * with backoff and full jitter (`retryDelayMs`).
 * The server sends a fresh snapshot on every connect, so a reconnect catches up.
 *
 * `onMessage(message)` gets every parsed server message; `onStatus(state)` gets
 * "connecting", "live", "reconnecting" or "gone" (no such table; the multi-table socket's tables refused).
 */

const FIRST_RETRY_MS = 2000;
const LONGEST_RETRY_MS = 8000;
const PING_EVERY_MS = 20000;
const TABLE_NOT_FOUND = 4404;
const REFUSED = 4403; // the multi-table socket's tables refused (its error message said why): asking again will not help

/**
 * How long to wait before the `retries`-th attempt again (0: the first since the socket closed): anywhere from
 * 0 to a window of 2 s, doubling with each failed attempt up to 8 s ("full jitter"). A web host taken out
 * closes thousands of sockets in the same instant: a fixed delay (even ±25%) brought them back to the other
 * host together, each connect waiting behind the rest (docs/deployment.md, "The test bed"); spread over the
 * window they come back a few at a time, and a lone reconnect still waits 1 s on average. No longer than 8 s: a
 * few seconds with no host to take them (Redis restarted) cost a player who tried three times a 15 s window,
 * most of a coup's betting. The bed's players
 * (bench/cluster/players.py, `retry_delay`) follow the same policy: change both together.
 */
export function retryDelayMs(retries, random = Math.random) {
  return random() * Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** retries);
}

export function connectTable(path, { onMessage, onStatus = () => {} }) {
  const url = new URL(path, window.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  let socket;
  let retries = 0;
  let retryTimer;
  let pingTimer;
  let heardSincePing = true;
  let stopped = false;

  function open() {
    clearTimeout(retryTimer);
    onStatus(retries ? "reconnecting" : "connecting");
    socket = new WebSocket(url);
    socket.addEventListener("open", () => {
      retries = 0;
      heardSincePing = true;
      onStatus("live");
      pingTimer = setInterval(keepAlive, PING_EVERY_MS);
    });
    socket.addEventListener("message", (event) => {
      heardSincePing = true;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      onMessage(message);
    });
    socket.addEventListener("close", (event) => {
      clearInterval(pingTimer);
      if (stopped) return;
      if (event.code === TABLE_NOT_FOUND || event.code === REFUSED) {
        onStatus("gone");
        return;
      }
      const delay = retryDelayMs(retries);
      retries += 1;
      onStatus("reconnecting");
      retryTimer = setTimeout(open, delay);
    });
  }

  /** A connection that stopped answering (a sleeping laptop, a dead proxy) is dropped and made again. */
  function keepAlive() {
    if (!heardSincePing) {
      socket.close();
      return;
    }
    heardSincePing = false;
    send({ type: "ping" });
  }

  function send(message) {
    if (socket?.readyState !== WebSocket.OPEN) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  window.addEventListener("online", () => {
    if (!stopped && socket.readyState === WebSocket.CLOSED) open();
  });
  open();
  return {
    send,
    stop() {
      stopped = true;
      clearTimeout(retryTimer);
      socket.close();
    },
  };
}
