/**
 * The dealing scene of automatic tables (issue 19) and tables dealt on demand: each card slides from the shoe to its
 * hand's spot face down and turns over; a hand's third card lies sideways. The player who shows a hand squeezes its
 * cards (squeeze.js). A page drawn mid-coup shows the cards at once.
 */

import { FaceDownCards, reducedMotion } from "./squeeze.js";

/** Once the element's own animation ends (not a child's). */
function onOwnAnimationEnd(element, callback) {
  const listener = (event) => {
    if (event.target !== element) return;
    element.removeEventListener("animationend", listener);
    callback();
  };
  element.addEventListener("animationend", listener);
}

export class DealingScene extends FaceDownCards {
  /** The scene of an automatic table's page (its stage carries `data-scene`), else null. */
  static attach(root, hands, onTurn, squeezeTurnMs) {
    const stage = root.querySelector("[data-scene]");
    return stage ? new DealingScene(stage, hands, onTurn, squeezeTurnMs) : null;
  }

  constructor(stage, hands, onTurn, squeezeTurnMs) {
    super(hands, onTurn, squeezeTurnMs);
    this.shoe = stage.querySelector("[data-scene-shoe]");
  }

  /** Put a dealt card's face (an element of cards.js) on its hand's spot: face up at once unless `animate`. */
  deal(face, { position, hand, card, animate }) {
    const entry = this.lay(face, { position, hand, card });
    if (!animate) {
      this.turnUp(entry, "shown");
      return;
    }
    const moving = !reducedMotion();
    if (moving) this.slideFromShoe(entry.slot);
    if (this.squeezes(hand)) {
      this.offerSqueeze(entry);
      return;
    }
    if (!moving) {
      this.turnUp(entry, "auto");
      return;
    }
    onOwnAnimationEnd(entry.slot, () => this.turnUp(entry, "auto"));
    entry.timer = setTimeout(() => this.turnUp(entry, "auto"), 1200); // should the animation not run
  }

  /** The card starts at the shoe's mouth and slides to its spot. */
  slideFromShoe(slot) {
    if (!this.shoe) return;
    const from = this.shoe.getBoundingClientRect();
    const to = slot.getBoundingClientRect();
    if (!to.width) return;
    slot.style.setProperty("--from-x", `${from.left + from.width * 0.3 - (to.left + to.width / 2)}px`);
    slot.style.setProperty("--from-y", `${from.top + from.height * 0.6 - (to.top + to.height / 2)}px`);
    slot.classList.add("scene-card--sliding");
    onOwnAnimationEnd(slot, () => slot.classList.remove("scene-card--sliding"));
  }
}
