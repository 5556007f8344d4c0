/**
 * The table page's JSON endpoints (session auth + CSRF). Answers are `{ok, round_id, balance, bets}`;
 * a refusal `{error: {code, message, details}}` is thrown as an `ApiError` carrying the server's reason.
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
  const message =
    response.status === 403
      ? gettext("Your session has expired: reload the page and sign in again.")
      : interpolate(gettext("The server could not answer (%(status)s). Try again."), { status: response.status }, true);
  throw new ApiError({ code: `http_${response.status}`, message });
}

async function request(url, options) {
  let response;
  try {
    response = await fetch(url, { credentials: "same-origin", ...options });
  } catch {
    throw new ApiError({ code: "offline", message: gettext("The server cannot be reached. Check your connection.") });
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
