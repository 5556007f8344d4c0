/**
 * The player's bet requests (bet, undo, remove, rebet), each with a request_id (docs/live.md): sent over
 * the table's socket when it is open, else (or when the socket gives no answer in time) to the table
 * page's endpoint with the same request_id. The server carries a request out once whatever the path and
 * however often it is sent, so a reconnect simply sends every unanswered request again.
 *
 * `send(kind, body)` resolves with `{round_id, balance, bets}` (the player's stakes on the round) or
 * rejects with an ApiError carrying the server's code and message.
 */

import { ApiError, postJSON } from "./api.js";

const SOCKET_ANSWER_MS = 8000;

export function createBetRequests({ socket, urls }) {
  const waiting = new Map(); // request_id -> {kind, message, resolve, reject, timer}

  function viaHttp(entry) {
    clearTimeout(entry.timer);
    waiting.delete(entry.message.request_id);
    const { type, ...body } = entry.message;
    postJSON(urls[type], body).then(entry.resolve, entry.reject);
  }

  function send(kind, body) {
    const message = { type: kind, request_id: crypto.randomUUID(), ...body };
    return new Promise((resolve, reject) => {
      const entry = { message, resolve, reject, timer: null };
      if (!socket.send(message)) {
        viaHttp(entry);
        return;
      }
      entry.timer = setTimeout(() => viaHttp(entry), SOCKET_ANSWER_MS);
      waiting.set(message.request_id, entry);
    });
  }

  /** A `bet_accepted` or `bet_rejected` message from the socket. */
  function answer(message) {
    const entry = waiting.get(message.request_id);
    if (!entry) return;
    clearTimeout(entry.timer);
    waiting.delete(message.request_id);
    if (message.type === "bet_accepted") {
      entry.resolve({ round_id: message.round_id, balance: message.balance, bets: message.own_totals });
    } else {
      entry.reject(new ApiError(message.error));
    }
  }

  /** The socket is open again: every request still unanswered goes again (the server answers it once). */
  function resend() {
    for (const entry of waiting.values()) {
      if (!socket.send(entry.message)) viaHttp(entry);
    }
  }

  return { send, answer, resend };
}
