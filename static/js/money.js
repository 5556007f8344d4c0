/**
 * Money as the server sends it: decimal strings such as "1000.00". Sums are kept in integer
 * cents (exact), never in floating point; amounts go back to the server as strings.
 */

import { PAGE_LANGUAGE } from "./locale.js";

/** "12.5" -> 1250, "-3.00" -> -300. */
export function toCents(amount) {
  const match = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(String(amount).trim());
  if (!match) throw new Error(`not an amount: ${amount}`);
  const cents = Number(match[2]) * 100 + Number((match[3] ?? "").padEnd(2, "0"));
  return match[1] ? -cents : cents;
}

/** 1250 -> "12.50": the string the server expects. */
export function fromCents(cents) {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

// Amounts as the page's language writes numbers: "1,000.00" in English and in Chinese.
const WITH_CENTS = new Intl.NumberFormat(PAGE_LANGUAGE, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const WHOLE = new Intl.NumberFormat(PAGE_LANGUAGE, { maximumFractionDigits: 0 });

/** 100000 -> "1,000.00", for display; `short` drops whole cents ("1,000"), as chips show amounts. */
export function formatCents(cents, { short = false } = {}) {
  // The whole units and the cents formatted apart: no floating point, whatever the amount.
  const whole = Math.trunc(Math.abs(cents) / 100);
  const fraction = Math.abs(cents) % 100;
  const sign = cents < 0 ? "-" : "";
  if (short && fraction === 0) return `${sign}${WHOLE.format(whole)}`;
  const decimal = WITH_CENTS.formatToParts(0.5).find((part) => part.type === "decimal")?.value ?? ".";
  return `${sign}${WHOLE.format(whole)}${decimal}${String(fraction).padStart(2, "0")}`;
}

/** An amount with its currency, in the page's language's order: "1,000.00 EUR". */
export const withCurrency = (amount, currency) =>
  interpolate(pgettext("amount with its currency", "%(amount)s %(currency)s"), { amount, currency }, true);

/** "1000.00" -> "1,000.00". */
export const formatMoney = (amount) => formatCents(toCents(amount));
