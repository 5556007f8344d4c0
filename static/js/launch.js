/**
 * A game launch link's page: it goes on to the game at once. Opening the link used nothing; this post uses
 * it (a link preview, which runs no script, leaves it to the player). Without script, the button does it.
 */

const form = document.querySelector("form[data-launch]");
if (form) form.requestSubmit();
