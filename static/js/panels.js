/** The Limits dialog. Text goes in with textContent only. */

import { betLabel } from "./bets.js";
import { personalLimits, tableLimits } from "./limits.js";
import { formatMoney } from "./money.js";

function row(cells, tag = "td") {
  const tr = document.createElement("tr");
  for (const cell of cells) {
    const td = document.createElement(tag);
    if (cell instanceof Node) td.append(cell);
    else td.textContent = cell;
    tr.append(td);
  }
  return tr;
}

/** Seed 001 "Limits": the minimum and maximum of each betting spot (and the table-wide maximum), in the
 * player's currency; a table without limits in it takes no bets from the player, and says so. */
export function renderLimits(tbody, note, table, currency) {
  const { rules } = table;
  const limits = tableLimits(table, currency);
  if (!limits) {
    tbody.replaceChildren();
    const text = gettext("This table takes no bets in %(currency)s: it plays in %(currencies)s.");
    note.textContent = interpolate(text, { currency, currencies: Object.keys(rules.currencies).join(", ") }, true);
    return;
  }
  tbody.replaceChildren(
    ...limits.rows.map(({ betType, pays, min, max, tableMax }) =>
      row([betLabel(betType), pays, formatMoney(min), formatMoney(max), tableMax ? formatMoney(tableMax) : "—"]),
    ),
  );
  const rulesText = [
    interpolate(
      gettext("All amounts in %(currency)s. Maximum difference between Banker and Player bets at the table: %(amount)s."),
      { currency, amount: formatMoney(limits.maxDifferential) },
      true,
    ),
    rules.forbid_player_and_banker ? gettext("Player and Banker cannot both be bet in one coup.") : "",
    rules.commission
      ? interpolate(gettext("Banker wins pay 0.95:1 (%(commission)s commission)."), { commission: "5%" }, true)
      : gettext("No commission: a Banker win with 6 pays 1:2."),
  ];
  // In Chinese the sentences follow one another with no space (a zero-width one).
  note.textContent = rulesText.filter(Boolean).join(pgettext("between sentences", " "));
}

/** Seed 000 "personal limit marker": the player's own limits, for the bet types their marker covers (in the
 * player's currency); hidden when they hold none. */
export function renderYourLimits(section, table, limits) {
  const rows = personalLimits(table.rules, limits);
  section.hidden = rows.length === 0;
  section.querySelector("[data-your-limits-rows]").replaceChildren(
    ...rows.map(({ betType, min, max }) => row([betLabel(betType), formatMoney(min), formatMoney(max)])),
  );
}
