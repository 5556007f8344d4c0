// The dealer console's card pad: tap a rank and a suit (in either order) and the card is entered. The card
// field stays for a card reader (it types the code and Enter) or the keyboard.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  for (const form of document.querySelectorAll("[data-card-entry]")) {
    const field = form.querySelector("input[name=card]");
    const chosen = { rank: null, suit: null };

    const choose = (kind, button) => {
      chosen[kind] = button.dataset[kind];
      for (const other of form.querySelectorAll(`[data-${kind}]`)) {
        other.setAttribute("aria-pressed", String(other === button));
      }
      field.value = `${chosen.rank || ""}${chosen.suit || ""}`;
      if (chosen.rank && chosen.suit) {
        form.requestSubmit();
      }
    };

    form.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-rank], button[data-suit]");
      if (button) {
        choose(button.dataset.rank ? "rank" : "suit", button);
      }
    });
  }
});

// The pit screen refreshes itself: every few seconds its content is fetched again and swapped in.
document.addEventListener("DOMContentLoaded", () => {
  const live = document.querySelector("[data-auto-refresh]");
  if (!live) {
    return;
  }
  const seconds = Number(live.dataset.autoRefresh) || 5;
  setInterval(async () => {
    try {
      const response = await fetch(window.location.href, { headers: { Accept: "text/html" } });
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
});
