/** The figures of the table page's Limits dialog, from the snapshot's table: no words, no DOM (panels.js). */

import { offeredBets } from "./bets.js";

/**
 * Seed 001 "Limits" in the player's currency: each offered bet's limits (`{betType, pays, min, max, tableMax}`,
 * `tableMax` null when the bet has no table-wide maximum) and the most Banker and Player may differ by at the
 * table; null when the table takes no bets in that currency.
 */
export function tableLimits(table, currency) {
  const { rules, payouts } = table;
  const inCurrency = rules.currencies[currency];
  if (!inCurrency) return null;
  const rows = offeredBets(rules)
    .filter((betType) => inCurrency.limits[betType])
    .map((betType) => {
      const { min, max, table_max: tableMax } = inCurrency.limits[betType];
      return { betType, pays: payouts[betType] ?? "", min, max, tableMax };
    });
  return { rows, maxDifferential: inCurrency.max_differential };
}

/** Seed 000 "personal limit marker": the offered bets the player's own limits (`{bet_type: {min, max}}`) cover,
 * as `{betType, min, max}`. */
export const personalLimits = (rules, limits) =>
  offeredBets(rules)
    .filter((betType) => limits[betType])
    .map((betType) => ({ betType, min: limits[betType].min, max: limits[betType].max }));
