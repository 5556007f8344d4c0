/**
 * Cards laid face down on their hand's spot that turn over, and the squeeze (seed 000 §5.1: the highest bettor on a
 * hand shows it). The player who shows a hand peels its cards: a drag from a corner lifts it and, past a threshold,
 * turns it over (Enter or Space turns it at once). Cosmetic only: a card not squeezed turns by itself after a couple
 * of seconds, when its hand's next card comes, or at the result. The automatic tables' dealing scene (scene.js) lays
 * every card this way; a dealer table only the cards of the hands the viewer shows (coup-view.js).
 */

import { rankText, suitSymbol } from "./cards.js";

const PEEL_THRESHOLD = 1.1; // of 2 (the whole diagonal): released past it, the card turns over
// Where a card's pips sit (x, y in % of the face), as on a real deck.
const COLUMN = { l: 35, c: 50, r: 65 };
const PIPS = {
  2: ["c20", "c80"],
  3: ["c20", "c50", "c80"],
  4: ["l20", "r20", "l80", "r80"],
  5: ["l20", "r20", "c50", "l80", "r80"],
  6: ["l20", "r20", "l50", "r50", "l80", "r80"],
  7: ["l20", "r20", "c35", "l50", "r50", "l80", "r80"],
  8: ["l20", "r20", "c35", "l50", "r50", "c65", "l80", "r80"],
  9: ["l20", "r20", "l40", "r40", "c50", "l60", "r60", "l80", "r80"],
  T: ["l20", "r20", "c30", "l40", "r40", "l60", "r60", "c70", "l80", "r80"],
};

export const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

const span = (className, text = "") => {
  const element = document.createElement("span");
  element.className = className;
  if (text) element.textContent = text;
  return element;
};

/** The face's indices (rank over suit, top left and, upside down, bottom right) and its pips or court. */
function dressFace(face, code) {
  const rank = rankText(code);
  const suit = suitSymbol(code);
  const index = (where) => {
    const corner = span(`card-corner scene-index scene-index--${where}`);
    corner.setAttribute("aria-hidden", "true");
    corner.append(span("scene-rank", rank), span("scene-suit", suit));
    return corner;
  };
  const pips = span("scene-pips");
  pips.setAttribute("aria-hidden", "true");
  if ("JQK".includes(code[0])) {
    const court = span("scene-court");
    court.append(span("scene-court-rank", rank), span("scene-court-suit", suit));
    pips.append(court);
  } else if (code[0] === "A") {
    pips.append(span("scene-pip scene-pip--ace", suit));
  } else {
    for (const spot of PIPS[code[0]]) {
      const pip = span(`scene-pip${Number(spot.slice(1)) > 50 ? " scene-pip--down" : ""}`, suit);
      pip.style.setProperty("--x", `${COLUMN[spot[0]]}%`);
      pip.style.setProperty("--y", `${spot.slice(1)}%`);
      pips.append(pip);
    }
  }
  face.replaceChildren(index("top"), pips, index("bottom"));
  face.classList.add("scene-face");
}

/** The part of a unit square with fx + fy <= limit (fx, fy measured from the corner opposite the peeled one): the
 * back left as the card is peeled, as a CSS polygon. */
function keptPolygon(limit, right, bottom) {
  const square = [
    [0, 0],
    [1, 0],
    [1, 1],
    [0, 1],
  ];
  const inside = ([x, y]) => x + y <= limit;
  const points = [];
  for (const [index, point] of square.entries()) {
    const next = square[(index + 1) % 4];
    if (inside(point)) points.push(point);
    if (inside(point) !== inside(next)) {
      const share = (limit - point[0] - point[1]) / (next[0] + next[1] - point[0] - point[1]);
      points.push([point[0] + share * (next[0] - point[0]), point[1] + share * (next[1] - point[1])]);
    }
  }
  if (points.length === 0) return "polygon(0 0, 0 0, 0 0)";
  const css = points.map(([fx, fy]) => {
    const x = right ? fx : 1 - fx;
    const y = bottom ? fy : 1 - fy;
    return `${(x * 100).toFixed(2)}% ${(y * 100).toFixed(2)}%`;
  });
  return `polygon(${css.join(", ")})`;
}

export class FaceDownCards {
  /** `hands`: hand -> {cards: its cards' element}; `onTurn(hand)`: a card of that hand is now face up;
   * `squeezeTurnMs`: how long a squeezable card left alone waits (the setting SQUEEZE_TURN_SECONDS). */
  constructor(hands, onTurn, squeezeTurnMs) {
    this.hands = hands;
    this.onTurn = onTurn;
    this.squeezeTurnMs = squeezeTurnMs;
    this.mine = new Set(); // the hands the viewer shows (their private `you_show` event)
    this.cards = new Map(); // position -> {hand, slot, backFace, up, timer}
  }

  clear() {
    for (const card of this.cards.values()) clearTimeout(card.timer);
    this.cards.clear();
    this.mine.clear();
  }

  /** The hands the player viewing the page shows (the public `shown_by` names them only by display name). */
  setMine(hands) {
    this.mine = new Set(hands);
  }

  forgetMine(hands) {
    for (const hand of hands) this.mine.delete(hand);
  }

  squeezes(hand) {
    return this.mine.has(hand);
  }

  /** A card still face down: under the player's finger when the result came (it turns when let go). */
  anyFaceDown() {
    return [...this.cards.values()].some((card) => !card.up);
  }

  isFaceDown(position) {
    const card = this.cards.get(position);
    return Boolean(card && !card.up);
  }

  /** Lay a dealt card's face (an element of cards.js) face down on its hand's spot, in a slot that turns over. */
  lay(face, { position, hand, card: code }) {
    this.turnHand(hand); // its hand's previous cards, still face down for a squeeze, turn over now
    dressFace(face, code);
    face.classList.remove("card--third");
    const slot = span(`scene-card${position >= 4 ? " scene-card--third" : ""}`);
    slot.dataset.position = position;
    slot.dataset.face = "down";
    const flipper = span("scene-flipper");
    const back = span("scene-back");
    back.setAttribute("aria-hidden", "true");
    const backFace = span("scene-back-face");
    back.append(backFace);
    flipper.append(face, back);
    slot.append(flipper);
    const entry = { hand, slot, backFace, up: false, timer: null };
    this.cards.set(position, entry);
    this.hands[hand].cards.append(slot);
    return entry;
  }

  /** The hand's cards still face down turn over (its next card has come). */
  turnHand(hand) {
    for (const card of this.cards.values()) if (card.hand === hand) this.turnUp(card, "auto");
  }

  /** Turn a card face up: `how` is "shown" (drawn at once), "auto" or "squeeze". */
  turnUp(entry, how) {
    if (entry.up) return;
    if (how === "auto" && entry.peeling) {
      entry.turnOnRelease = true; // never pulled from under the player's finger: it turns when let go
      return;
    }
    entry.up = true;
    clearTimeout(entry.timer);
    entry.stopSqueeze?.();
    const { slot } = entry;
    slot.dataset.face = "up";
    slot.dataset.revealed = how;
    slot.classList.toggle("scene-card--instant", how === "shown" || reducedMotion());
    this.onTurn(entry.hand);
  }

  /** Every card face up (the result is known). */
  revealAll() {
    for (const entry of this.cards.values()) this.turnUp(entry, "auto");
  }

  /** The player who shows the hand may peel this card; it turns by itself after `squeezeTurnMs`. */
  offerSqueeze(entry) {
    const { slot, backFace } = entry;
    slot.classList.add("scene-card--squeeze");
    slot.tabIndex = 0;
    slot.setAttribute("role", "button");
    slot.setAttribute("aria-label", gettext("Your card, face down: drag to squeeze it, Enter to turn it over"));
    const hint = span("scene-hint", gettext("Drag to squeeze"));
    hint.setAttribute("aria-hidden", "true");
    slot.append(hint);
    let drag = null;
    const peel = (amount) => {
      slot.dataset.peel = amount.toFixed(2);
      backFace.style.setProperty("clip-path", keptPolygon(2 - amount, drag?.right ?? true, drag?.bottom ?? true));
    };
    const down = (event) => {
      if (entry.up || (event.pointerType === "mouse" && event.button !== 0)) return;
      event.preventDefault();
      const box = slot.getBoundingClientRect();
      const right = event.clientX > box.left + box.width / 2; // on the screen
      const bottom = event.clientY > box.top + box.height / 2;
      // A third card lies sideways (a quarter turn clockwise): the screen's bottom is its right, the left its bottom.
      const sideways = slot.classList.contains("scene-card--third");
      drag = {
        id: event.pointerId,
        x: event.clientX,
        y: event.clientY,
        towardsX: right ? -1 : 1, // the pointer peels as it moves towards the opposite corner
        towardsY: bottom ? -1 : 1,
        width: box.width,
        height: box.height,
        right: sideways ? bottom : right, // the peeled corner, on the card
        bottom: sideways ? !right : bottom,
        amount: 0,
      };
      slot.setPointerCapture?.(event.pointerId);
      slot.classList.add("scene-card--peeling");
      entry.peeling = true;
    };
    const move = (event) => {
      if (!drag || event.pointerId !== drag.id) return;
      const dx = (event.clientX - drag.x) / drag.width;
      const dy = (event.clientY - drag.y) / drag.height;
      drag.amount = Math.min(2, Math.max(0, drag.towardsX * dx + drag.towardsY * dy));
      peel(drag.amount);
    };
    const up = (event) => {
      if (!drag || event.pointerId !== drag.id) return;
      const amount = drag.amount;
      slot.classList.remove("scene-card--peeling");
      entry.peeling = false;
      drag = null;
      if (amount >= PEEL_THRESHOLD) this.turnUp(entry, "squeeze");
      else if (entry.turnOnRelease) this.turnUp(entry, "auto");
      else peel(0);
    };
    const key = (event) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      this.turnUp(entry, "squeeze");
    };
    slot.addEventListener("pointerdown", down);
    slot.addEventListener("pointermove", move);
    slot.addEventListener("pointerup", up);
    slot.addEventListener("pointercancel", up);
    slot.addEventListener("keydown", key);
    entry.stopSqueeze = () => {
      slot.removeEventListener("pointerdown", down);
      slot.removeEventListener("pointermove", move);
      slot.removeEventListener("pointerup", up);
      slot.removeEventListener("pointercancel", up);
      slot.removeEventListener("keydown", key);
      slot.classList.remove("scene-card--squeeze", "scene-card--peeling");
      slot.removeAttribute("tabindex");
      slot.removeAttribute("role");
      slot.removeAttribute("aria-label");
      hint.remove();
      backFace.style.removeProperty("clip-path");
    };
    entry.timer = setTimeout(() => this.turnUp(entry, "auto"), this.squeezeTurnMs);
  }
}
