/**
 * A game launch link's page: it goes on to the game at once. Opening the link used nothing; this post uses
 * it (a link preview, which runs no script, leaves it to the player). Without script, the button does it.
 */

/** The page's parameters (templates/launch.html): its form. */
export const readParams = (document) => ({ form: document.querySelector("form[data-launch]") });

export function init({ form }) {
  if (form) form.requestSubmit();
}

// Run by the page that loads it; imported without a page (the unit tests), it waits.
if (globalThis.document) init(readParams(document));
