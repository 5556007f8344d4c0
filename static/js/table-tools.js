/** The table page's tools: the Limits and History dialogs, Instant bets, Sound and Full screen. */

import { ApiError, getJSON } from "./api.js";
import { reasonText } from "./errors.js";
import { renderHistory } from "./history.js";
import { renderLimits, renderYourLimits } from "./panels.js";
import { setSound, soundIsOn, unlockSound } from "./sounds.js";

/** "Instant bets": each chip is placed as it is put down (the player's choice, kept in this browser). */
const INSTANT_KEY = "punto.instantBets";
export const instantBets = () => localStorage.getItem(INSTANT_KEY) === "on";

/**
 * The tools of the table page's `app`: `table()` is the snapshot's table (its limits), `video` a dealer
 * table's TableVideo (else null), `onInstant(text)` is told when the player turns Instant bets on or off (the
 * text says which).
 */
export function setupTools(app, { table, currency, personalLimits, historyUrl, video, onInstant }) {
  const $ = (selector) => app.querySelector(selector);
  const tool = (name) => $(`[data-tool="${name}"]`);
  const dialog = (name) => $(`[data-dialog="${name}"]`);

  tool("limits").addEventListener("click", () => {
    renderLimits($("[data-limits]"), $("[data-differential]"), table(), currency);
    renderYourLimits($("[data-your-limits]"), table(), personalLimits);
    dialog("limits").showModal();
  });

  tool("history").addEventListener("click", async () => {
    const container = $("[data-history]");
    container.textContent = gettext("Loading…");
    dialog("history").showModal();
    try {
      renderHistory(container, await getJSON(historyUrl));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      container.textContent = reasonText(error);
    }
  });

  const instantButton = tool("instant");
  instantButton.setAttribute("aria-pressed", String(instantBets()));
  instantButton.addEventListener("click", () => {
    const on = !instantBets();
    localStorage.setItem(INSTANT_KEY, on ? "on" : "off");
    instantButton.setAttribute("aria-pressed", String(on));
    onInstant(
      on ? gettext("Instant bets: each chip is placed as you put it down") : gettext("Instant bets off: confirm your chips"),
    );
  });

  const soundButton = tool("sound");
  soundButton.setAttribute("aria-pressed", String(soundIsOn()));
  soundButton.addEventListener("click", () => {
    const on = !soundIsOn();
    setSound(on);
    soundButton.setAttribute("aria-pressed", String(on));
    video?.setSound(on);
  });
  app.addEventListener(
    "pointerdown",
    () => {
      unlockSound();
      video?.setSound(soundIsOn()); // the first gesture lets the video play aloud, if the player's sound is on
    },
    { once: true },
  );

  const fullscreenButton = tool("fullscreen");
  fullscreenButton.hidden = !document.fullscreenEnabled;
  fullscreenButton.addEventListener("click", () => {
    if (document.fullscreenElement) document.exitFullscreen();
    else document.documentElement.requestFullscreen();
  });
  document.addEventListener("fullscreenchange", () => {
    fullscreenButton.setAttribute("aria-pressed", String(Boolean(document.fullscreenElement)));
  });
}
