/**
 * The table page's JSON endpoints (session auth + CSRF). Answers are `{ok, round_id, balance, bets}`;
 * a refusal `{error: {code, message, details}}` is thrown as an `ApiError` carrying the server's reason; no answer,
 * or one that is not ours, as an `ApiError` of the page's own code (`offline`, `session_expired`, `http_error`),
 * which static/js/errors.js says to the player as it says the server's.
 */

export class ApiError extends Error {
  constructor({ code, message, details = {} }) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

const csrfToken = () => document.querySelector('meta[name="csrf-token"]')?.content ?? "";

async function answer(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: a proxy's error page, or the CSRF failure page
  }
  if (response.ok && body) return body;
  if (body?.error) throw new ApiError(body.error);
  if (response.status === 403) throw new ApiError({ code: "session_expired", message: "session expired" });
  throw new ApiError({ code: "http_error", message: `HTTP ${response.status}`, details: { status: String(response.status) } });
}

async function request(url, options) {
  let response;
  try {
    response = await fetch(url, { credentials: "same-origin", ...options });
  } catch {
    throw new ApiError({ code: "offline", message: "the server cannot be reached" });
  }
  return answer(response);
}

export const getJSON = (url) => request(url, { headers: { Accept: "application/json" } });

export const postJSON = (url, body = {}) =>
  request(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify(body),
  });
