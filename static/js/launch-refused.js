/**
 * A refused game launch's page (templates/launch_refused.html): the reason said from its code in the page's
 * language, as the table page says a refusal (static/js/errors.js); without script the server's English stays.
 */

import { reasonText } from "./errors.js";

/** The page's parameters: the paragraph with the refusal's code. */
export const readParams = (document) => ({ reason: document.querySelector("[data-launch-refused]") });

export function init({ reason }) {
  if (reason) reason.textContent = reasonText({ code: reason.dataset.launchRefused });
}

// Run by the page that loads it; imported without a page (the unit tests), it waits.
if (globalThis.document) init(readParams(document));
