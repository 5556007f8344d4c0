import "./setup.mjs";

import assert from "node:assert/strict";
import { test } from "node:test";

import * as consolePage from "../../static/js/console.js";
import * as launch from "../../static/js/launch.js";
import * as lobby from "../../static/js/lobby.js";
import * as table from "../../static/js/table.js";

/** A page of the elements `found` by selector or id. */
const page = (found) => ({ querySelector: (selector) => found[selector] ?? null, getElementById: (id) => found[id] ?? null });

test("each page's module loads without a page and starts only from init()", () => {
  for (const module of [table, lobby, launch, consolePage]) {
    assert.equal(typeof module.readParams, "function");
    assert.equal(typeof module.init, "function");
  }
});

test("the table page's parameters: the app's data and the player's personal limits", () => {
  const app = {
    dataset: {
      table: "pb1",
      socket: "/ws/tables/pb1/",
      serverNow: "2025-01-01T10:00:00+00:00",
      user: "Ann",
      currency: "EUR",
      squeezeTurnMs: "2500",
      betsUrl: "/tables/pb1/bets/",
      undoUrl: "/tables/pb1/bets/undo/",
      removeUrl: "/tables/pb1/bets/remove/",
      rebetUrl: "/tables/pb1/bets/rebet/",
      historyUrl: "/tables/pb1/history/",
      realityCheckUrl: "/account/reality-check/",
      lobbyUrl: "/",
    },
  };
  const limits = { textContent: '{"tie": {"min": "1.00", "max": "5.00"}}' };
  assert.deepEqual(table.readParams(page({ "table-app": app, "personal-limits": limits })), {
    app,
    table: "pb1",
    socket: "/ws/tables/pb1/",
    serverNow: "2025-01-01T10:00:00+00:00",
    user: "Ann",
    currency: "EUR",
    squeezeTurnMs: 2500,
    personalLimits: { tie: { min: "1.00", max: "5.00" } },
    urls: {
      bets: "/tables/pb1/bets/",
      undo: "/tables/pb1/bets/undo/",
      remove: "/tables/pb1/bets/remove/",
      rebet: "/tables/pb1/bets/rebet/",
      history: "/tables/pb1/history/",
      realityCheck: "/account/reality-check/",
      lobby: "/",
    },
  });
});

test("a launch link's page sends its form at once", () => {
  let sent = 0;
  const form = { requestSubmit: () => (sent += 1) };
  launch.init(launch.readParams(page({ "form[data-launch]": form })));
  assert.equal(sent, 1);
  launch.init(launch.readParams(page({}))); // no form: nothing to send
  assert.equal(sent, 1);
});

test("a lobby without tables follows nothing", () => {
  const params = lobby.readParams(page({}));
  assert.equal(params.list, null);
  lobby.init(params); // would open the lobby's socket (and fail without a browser) if it followed anything
});

test("the console follows its table, and the pit screen refreshes, every few seconds", () => {
  const live = { dataset: { consoleLive: "7" } };
  const refreshed = { dataset: { autoRefresh: "" } };
  assert.deepEqual(consolePage.readParams(page({ "[data-console-live]": live })), { followSeconds: 7, refreshSeconds: null });
  assert.deepEqual(consolePage.readParams(page({ "[data-auto-refresh]": refreshed })), { followSeconds: null, refreshSeconds: 5 });
  assert.deepEqual(consolePage.readParams(page({})), { followSeconds: null, refreshSeconds: null });
});
