// The shoe as players see it (seed 000): the burn card shown, how many cards it burned, and once the cut card
// is out, which coup is the last. One place for the table page and the lobby.

import { cardText } from "./cards.js";
import { inPlay } from "./table-state.js";

/** "Burn card 7♥: 7 cards burned" (or nothing before a shoe, or for a shoe burned by no-bet coups). */
export function burnText(shoe) {
  if (!shoe?.burn_shown) return "";
  const text = ngettext(
    "Burn card %(card)s: %(count)s card burned",
    "Burn card %(card)s: %(count)s cards burned",
    shoe.burned,
  );
  return interpolate(text, { card: cardText(shoe.burn_shown), count: shoe.burned }, true);
}

/** What the cut card means for the coup in play (or the next one, between coups); "" while it is in. */
export function cutCardNotice(shoe, coup) {
  if (shoe?.last_coup == null) return "";
  const played = coup?.number ?? 0; // the coup in play, or the last one played
  if (inPlay(coup) && played === shoe.last_coup) return gettext("Cut card out: this is the last coup");
  if (played < shoe.last_coup) return gettext("Cut card out: the next coup is the last");
  return gettext("Cut card out: the shoe is finished");
}
