/** The coup on the table: the two hands as their cards are dealt, their totals, who shows them, the result. */

import { cardElement, handTotal } from "./cards.js";
import { resultAnnouncement } from "./results.js";
import { DealingScene } from "./scene.js";
import { FaceDownCards } from "./squeeze.js";

const HANDS = ["player", "banker"];

export class CoupView {
  /** `squeezeTurnMs`: how long a squeezable card left alone waits before it turns by itself; `onTurn(hand)`: a card
   * of that hand is now face up (the page dealt on demand waits for its cards to be open before the result). */
  constructor(root, { squeezeTurnMs, onTurn = () => {} }) {
    this.hands = Object.fromEntries(
      HANDS.map((hand) => [
        hand,
        {
          box: root.querySelector(`[data-hand="${hand}"]`),
          cards: root.querySelector(`[data-cards="${hand}"]`),
          total: root.querySelector(`[data-total="${hand}"]`),
          shownBy: root.querySelector(`[data-shown-by="${hand}"]`),
        },
      ]),
    );
    this.result = root.querySelector("[data-result]");
    this.dealt = new Map(); // position -> {hand, card}
    this.held = null; // the result, while a card is still face down under the player's finger
    this.afterDrawn = []; // what waits for the result to be drawn (the winners' glow, the player's own result)
    const turned = (hand) => {
      this.showTotal(hand);
      onTurn(hand);
      if (this.held && !this.faceDown.anyFaceDown()) this.drawResult(this.held);
    };
    // An automatic table's dealing scene, else null.
    this.scene = DealingScene.attach(root, this.hands, turned, squeezeTurnMs);
    // The cards laid face down: every card of the scene; at a dealer table, those of the hands the viewer shows.
    this.faceDown = this.scene ?? new FaceDownCards(this.hands, turned, squeezeTurnMs);
  }

  clear() {
    this.held = null;
    this.afterDrawn = [];
    this.dealt.clear();
    this.faceDown.clear();
    for (const hand of Object.values(this.hands)) {
      hand.cards.replaceChildren();
      hand.total.textContent = "";
      hand.shownBy.textContent = "";
      hand.box.classList.remove("hand--next", "hand--won");
    }
    this.result.textContent = "";
    this.result.dataset.winner = "";
  }

  /** Draw a coup from scratch (a snapshot): its cards so far and its result, if any. */
  show(coup) {
    this.clear();
    for (const card of coup.cards) this.addCard(card, { animate: false });
    if (coup.shown_by) this.showShownBy(coup.shown_by);
    if (coup.winner) this.showResult(coup);
  }

  /** Add a dealt card ({position, hand, card}); false if it was already there. */
  addCard({ position, hand, card }, { animate = true } = {}) {
    if (this.dealt.has(position)) return false;
    this.dealt.set(position, { hand, card });
    const element = cardElement(card, { third: position >= 4 });
    if (this.scene) {
      this.scene.deal(element, { position, hand, card, animate });
    } else if (animate && this.faceDown.squeezes(hand)) {
      this.faceDown.offerSqueeze(this.faceDown.lay(element, { position, hand, card }));
    } else {
      this.faceDown.turnHand(hand);
      if (animate) element.classList.add("card--dealt");
      this.hands[hand].cards.append(element);
    }
    this.showTotal(hand);
    return true;
  }

  /** A hand's total: of its cards face up. */
  showTotal(hand) {
    const codes = [...this.dealt]
      .filter(([position, dealt]) => dealt.hand === hand && !this.faceDown.isFaceDown(position))
      .map(([, dealt]) => dealt.card);
    this.hands[hand].total.textContent = codes.length ? handTotal(codes) : "";
  }

  cardCount() {
    return this.dealt.size;
  }

  /** Point at the hand that draws next (null: the coup is complete). */
  showNext(hand) {
    for (const [name, view] of Object.entries(this.hands)) view.box.classList.toggle("hand--next", name === hand);
  }

  /** The hands the viewer shows: their cards to come are laid face down for them to squeeze. */
  showMine(hands) {
    this.faceDown.setMine(hands);
  }

  showShownBy(shownBy) {
    this.faceDown.forgetMine(HANDS.filter((hand) => shownBy[hand] === "dealer")); // the dealer took the hand over
    for (const hand of HANDS) {
      const who = shownBy[hand];
      const text = who === "dealer" ? gettext("Shown by the dealer") : gettext("Shown by %(name)s");
      this.hands[hand].shownBy.textContent = who ? interpolate(text, { name: who }, true) : "";
    }
  }

  /** The result: drawn once every card is face up. A card the player is still peeling is never pulled from under
   * their finger, so the totals, the result and what waits on them (`afterResult`) come when it is let go: no total
   * counts a card still face down. */
  showResult(coup) {
    this.showNext(null);
    this.faceDown.revealAll();
    if (this.faceDown.anyFaceDown()) this.held = coup;
    else this.drawResult(coup);
  }

  /** Run `then` once the result is drawn: at once if it is (or if there is none to wait for). */
  afterResult(then) {
    if (this.held) this.afterDrawn.push(then);
    else then();
  }

  drawResult(coup) {
    this.held = null;
    for (const hand of HANDS) {
      this.hands[hand].box.classList.toggle("hand--won", coup.winner === hand);
      this.hands[hand].total.textContent = coup[`${hand}_total`];
    }
    const extras = [];
    if (coup.natural) extras.push(gettext("natural"));
    if (coup.player_pair) extras.push(gettext("player pair"));
    if (coup.banker_pair) extras.push(gettext("banker pair"));
    const text = resultAnnouncement(coup);
    this.result.dataset.winner = coup.winner;
    this.result.textContent = extras.length
      ? `${text} · ${extras.join(pgettext("between the items of a list", ", "))}`
      : text;
    const waiting = this.afterDrawn;
    this.afterDrawn = [];
    for (const then of waiting) then();
  }

  showVoid(reason) {
    this.showNext(null);
    this.result.dataset.winner = "void";
    this.result.textContent = interpolate(gettext("Round void: %(reason)s. Bets are refunded."), { reason }, true);
  }
}
