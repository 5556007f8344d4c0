/**
 * The multi-table view (templates/multi.html, docs/ui.md, Several tables): up to four tables, each a tile
 * (multi-tile.js), on one socket (`/ws/multi/?tables=…`, docs/live.md). Each table's events name it and go to its
 * tile; the player's own events name no table and go to the tile whose round they are about; the balance is the
 * page's one (the header's, else the page's own for a player whose casino holds it).
 */

import { serverClock } from "./countdown.js";
import { reasonText } from "./errors.js";
import { connectTable } from "./live.js";
import { formatMoney } from "./money.js";
import { MultiTile } from "./multi-tile.js";
import { TableView } from "./table-view.js";

export function init(app) {
  const clock = serverClock(app.dataset.serverNow);
  const view = new TableView(app); // the connection's state
  const balanceOutput = document.querySelector("[data-header-balance]") ?? app.querySelector("[data-balance]");
  const showBalance = (amount) => {
    if (amount != null && String(amount).trim() !== "") balanceOutput.textContent = formatMoney(amount);
  };
  const tiles = new Map();
  const live = connectTable(app.dataset.socket, {
    onMessage(message) {
      if (message.table) {
        tiles.get(message.table)?.receive(message);
      } else if (message.type === "error") {
        view.connection("gone");
        app.querySelector("[data-connection]").textContent = reasonText(message.data); // the tables refused
      } else {
        const tile = [...tiles.values()].find((each) => each.owns(message.data));
        if (tile) tile.receive(message);
        else if (message.type === "wallet") showBalance(message.data.balance); // a deposit, say
      }
    },
    onStatus(status) {
      if (status === "gone" && app.querySelector("[data-connection]").dataset.state === "gone") return;
      view.connection(status);
      if (status === "live") for (const tile of tiles.values()) tile.reconnected();
    },
  });
  for (const element of app.querySelectorAll("[data-tile]")) {
    const tile = new MultiTile(element, {
      clock,
      currency: app.dataset.currency,
      squeezeTurnMs: Number(app.dataset.squeezeTurnMs),
      send: live.send,
      onBalance: showBalance,
    });
    tiles.set(tile.code, tile);
  }
  return tiles;
}

// Run by the page that loads it (templates/multi.html).
if (globalThis.document) init(document.getElementById("multi-app"));
