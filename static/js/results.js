/**
 * A coup's result as it is announced, the winner's total first: "Banker wins 9 to 5", "Tie 6 to 6". The rule of
 * baccarat.coup.result_announcement, which the staff screens say; one table of cases holds both to it
 * (tests/js/fixtures/result-announcements.json).
 */

export const WINNER_NAMES = { player: gettext("Player wins"), banker: gettext("Banker wins"), tie: pgettext("result", "Tie") };

/** The hands' totals, the winner's first (on a tie, the Banker's: the same). */
export const totalsWinnerFirst = (coup) =>
  coup.winner === "player" ? [coup.player_total, coup.banker_total] : [coup.banker_total, coup.player_total];

/** "Banker wins 9 to 5", in the page's language. */
export function resultAnnouncement(coup) {
  const [high, low] = totalsWinnerFirst(coup);
  return interpolate(gettext("%(winner)s %(high)s to %(low)s"), { winner: WINNER_NAMES[coup.winner], high, low }, true);
}
