/** The page's language (its <html lang>), as amounts, times and the server's reasons are written in it; "en"
 * where there is no page (the unit tests, tests/js). */
export const PAGE_LANGUAGE = globalThis.document?.documentElement.lang || "en";
