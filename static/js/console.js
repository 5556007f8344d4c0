// The dealer console's and the pit screen's script (templates/console/base.html).

import { countDown, serverClock } from "./countdown.js";

// A page's own fetch of itself: the server does not count it as the staff member's activity (two_factor.py).
const AUTO_REFRESH = { Accept: "text/html", "X-Auto-Refresh": "1" };

/** The page's parameters: every how many seconds the console follows its table's status and the pit screen
 * refreshes itself (null: the page does not). */
export function readParams(document) {
  const live = document.querySelector("[data-console-live]");
  const refreshed = document.querySelector("[data-auto-refresh]");
  return {
    followSeconds: live ? Number(live.dataset.consoleLive) || 3 : null,
    refreshSeconds: refreshed ? Number(refreshed.dataset.autoRefresh) || 5 : null,
  };
}

export function init({ followSeconds, refreshSeconds }) {
  document.addEventListener("click", enterCard);
  showCountdown();
  if (followSeconds) followStatus(followSeconds);
  if (refreshSeconds) refreshEvery(refreshSeconds);
}

// The dealer console's card pad: tap a rank and a suit (in either order) and the card is entered. The card
// field stays for a card reader (it types the code and Enter) or the keyboard. Listened for on the document:
// the console's panels are swapped in fresh when the table changes (below).
function enterCard(event) {
  const button = event.target.closest("[data-card-entry] button[data-rank], [data-card-entry] button[data-suit]");
  if (!button) {
    return;
  }
  const form = button.closest("[data-card-entry]");
  const kind = button.dataset.rank ? "rank" : "suit";
  for (const other of form.querySelectorAll(`[data-${kind}]`)) {
    other.setAttribute("aria-pressed", String(other === button));
  }
  const chosen = (which) => form.querySelector(`[data-${which}][aria-pressed="true"]`)?.dataset[which] || "";
  form.querySelector("input[name=card]").value = `${chosen("rank")}${chosen("suit")}`;
  if (chosen("rank") && chosen("suit")) {
    form.requestSubmit();
  }
}

// The time left to bet, counted down by the server's clock as on the player's page (static/js/countdown.js), after
// the time betting closes: ", 12 s left"; at the deadline, "time is up" (the dealer calls no more bets). The
// panels swapped in fresh bring their own deadline and clock: each swap starts the count again.
let countdownStop = () => {};

function showCountdown() {
  countdownStop();
  const timer = document.querySelector("[data-betting-countdown]");
  if (!timer) {
    return;
  }
  const clock = serverClock(timer.dataset.serverNow);
  countdownStop = countDown(clock, timer.dataset.closesAt, (left) => {
    timer.textContent = left > 0 ? `, ${Math.ceil(left)} s left` : ": time is up";
    timer.dataset.secondsLeft = String(Math.ceil(left));
  });
}

// The console follows its table (casino/console/status.py): every few seconds it asks for the status. A hold
// for the pit and the next step show at once; when anything else the panels show changed (a pit boss acted
// in the admin, a coup was settled), the panels are swapped in fresh, unless the dealer is at work in them (a
// field changed, a seat's menu open, a field focused by hand): then as soon as they are not. Once a form is
// sent the page is on its way out: no more polls (a fresh copy fetched then would take the step's message).
// A poll answered by the sign-in page (the idle staff session ended) brings the sign-in page up. The fresh copy
// is asked for with X-Auto-Refresh: like the poll, it does not keep an idle staff session alive.
function followStatus(seconds) {
  const live = () => document.querySelector("[data-console-live]");
  let leaving = false;
  document.addEventListener("submit", () => {
    leaving = true;
  });
  window.addEventListener("pagehide", () => {
    leaving = true;
  });
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) {
      window.location.reload(); // back from the browser's history as it was left: as it is now instead
    }
  });

  const changed = (field) => {
    if (field.type === "checkbox" || field.type === "radio") {
      return field.checked !== field.defaultChecked;
    }
    if (field.tagName === "SELECT") {
      const initial = [...field.options].findIndex((option) => option.defaultSelected);
      return field.selectedIndex !== Math.max(initial, 0);
    }
    return field.value !== field.defaultValue;
  };
  const atWork = (region) => {
    const focused = document.activeElement;
    const fields = [...region.querySelectorAll("input, select, textarea")];
    return (
      (fields.includes(focused) && !focused.autofocus) ||
      fields.some(changed) ||
      region.querySelector("details[open]") !== null
    );
  };

  const show = (region, status) => {
    const alert = region.querySelector("[data-held-alert]");
    alert.textContent = status.held_alert;
    alert.hidden = !status.held_alert;
    const next = region.querySelector("[data-next-step]");
    next.textContent = status.next_step ? `Next: ${status.next_step}` : "";
    next.hidden = !status.next_step;
  };

  const swap = async (region) => {
    const response = await fetch(window.location.href, { headers: AUTO_REFRESH });
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = page.querySelector("[data-console-live]");
    if (response.ok && !response.redirected && fresh && !leaving && !atWork(region)) {
      region.replaceWith(fresh);
      fresh.querySelector("[autofocus]")?.focus();
      showCountdown();
    }
  };

  const follow = async () => {
    const region = live();
    try {
      const response = await fetch(region.dataset.statusUrl, { headers: { Accept: "application/json" } });
      if (response.redirected) {
        window.location.reload();
        return;
      }
      if (response.ok && !leaving) {
        const status = await response.json();
        show(region, status);
        if (status.version !== region.dataset.status && !atWork(region)) {
          await swap(region);
        }
      }
    } catch (error) {
      // Offline for a moment: the next poll tries again.
    }
    if (!leaving) {
      setTimeout(follow, seconds * 1000);
    }
  };
  setTimeout(follow, seconds * 1000);
}

// The pit screen refreshes itself: every few seconds its content is fetched again (X-Auto-Refresh: not the pit
// boss's activity) and swapped in; a refresh answered by the sign-in page (the idle session ended) brings it up.
function refreshEvery(seconds) {
  setInterval(async () => {
    try {
      const response = await fetch(window.location.href, { headers: AUTO_REFRESH });
      if (response.redirected) {
        window.location.reload();
        return;
      }
      if (!response.ok) {
        return;
      }
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const fresh = page.querySelector("[data-auto-refresh]");
      const current = document.querySelector("[data-auto-refresh]");
      if (fresh && current) {
        current.replaceWith(fresh);
      }
    } catch (error) {
      // Offline for a moment: the next tick tries again.
    }
  }, seconds * 1000);
}

// Run by the page that loads it; imported without a page (the unit tests), it waits.
if (globalThis.document) init(readParams(document));
