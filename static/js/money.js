/**
 * Money as the server sends it: decimal strings such as "1000.00". Sums are kept in integer
 * cents (exact), never in floating point; amounts go back to the server as strings.
 */

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

/** 100000 -> "1,000.00", for display; `short` drops whole cents ("1,000"), as chips show amounts. */
export function formatCents(cents, { short = false } = {}) {
  const [whole, fraction] = fromCents(cents).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return short && fraction === "00" ? grouped : `${grouped}.${fraction}`;
}

/** "1000.00" -> "1,000.00". */
export const formatMoney = (amount) => formatCents(toCents(amount));
