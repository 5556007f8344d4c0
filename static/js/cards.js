/** Playing cards as the server codes them ("KH", "TS", "9D"): elements and baccarat values. */

const SUITS = { S: ["♠", "spades"], H: ["♥", "hearts"], D: ["♦", "diamonds"], C: ["♣", "clubs"] };
const FACES = { A: ["A", "Ace"], T: ["10", "Ten"], J: ["J", "Jack"], Q: ["Q", "Queen"], K: ["K", "King"] };
// The cards' names for screen readers, in the page's language (SUITS' names are the CSS classes' too).
const SUIT_NAMES = { S: gettext("spades"), H: gettext("hearts"), D: gettext("diamonds"), C: gettext("clubs") };
const RANK_NAMES = { A: gettext("Ace"), T: gettext("Ten"), J: gettext("Jack"), Q: gettext("Queen"), K: gettext("King") };

const rankOf = (code) => FACES[code[0]] ?? [code[0], code[0]];

const cardName = (code) =>
  interpolate(gettext("%(rank)s of %(suit)s"), { rank: RANK_NAMES[code[0]] ?? code[0], suit: SUIT_NAMES[code[1]] }, true);

/** "TH" -> "10" and "♥". */
export const rankText = (code) => rankOf(code)[0];
export const suitSymbol = (code) => SUITS[code[1]][0];

/** "TH" -> "10♥". */
export const cardText = (code) => `${rankText(code)}${suitSymbol(code)}`;

/** A = 1, 2-9 their pips, 10 and faces 0. */
function cardValue(code) {
  const rank = code[0];
  if (rank === "A") return 1;
  return "TJQK".includes(rank) ? 0 : Number(rank);
}

export const handTotal = (codes) => codes.reduce((sum, code) => sum + cardValue(code), 0) % 10;

/** A small card face for lists ("9♠" in its suit's colour), named for screen readers. */
export function miniCardElement(code) {
  const card = document.createElement("span");
  card.className = `mini-card${"HD".includes(code[1]) ? " mini-card--red" : ""}`;
  card.setAttribute("role", "img");
  card.setAttribute("aria-label", cardName(code));
  card.textContent = cardText(code);
  return card;
}

/** A face-up card; a hand's third card lies sideways, as dealt at the table. */
export function cardElement(code, { third = false } = {}) {
  const [symbol, suitName] = SUITS[code[1]];
  const card = document.createElement("span");
  card.className = `card card--${suitName}${"HD".includes(code[1]) ? " card--red" : ""}${third ? " card--third" : ""}`;
  card.setAttribute("role", "img");
  card.setAttribute("aria-label", cardName(code));
  card.dataset.card = code;
  const corner = document.createElement("span");
  corner.className = "card-corner";
  corner.setAttribute("aria-hidden", "true");
  corner.textContent = cardText(code);
  const pip = document.createElement("span");
  pip.className = "card-pip";
  pip.setAttribute("aria-hidden", "true");
  pip.textContent = symbol;
  card.append(corner, pip);
  return card;
}
