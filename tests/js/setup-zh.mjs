/**
 * The page in Simplified Chinese: Django's JavaScript catalog as /jsi18n/ serves it from
 * locale/zh_Hans/LC_MESSAGES/djangojs.po (no fuzzy entry). Imported first, instead of setup.mjs, by a test file of
 * the Chinese page; `untranslated` collects the messages asked for that the catalogue lacks.
 */

import "./setup.mjs";

import { readFileSync } from "node:fs";

/** msgstr by [msgctxt \u0004] msgid, as django.views.i18n keys them. */
function catalogue() {
  const text = readFileSync(new URL("../../locale/zh_Hans/LC_MESSAGES/djangojs.po", import.meta.url), "utf8");
  const found = new Map();
  for (const block of text.split(/\n\n/)) {
    const fields = {};
    let current = null;
    for (const line of block.split("\n")) {
      const field = line.match(/^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?) (".*")$/);
      if (field) [current, fields[field[1]]] = [field[1], JSON.parse(field[2])];
      else if (line.startsWith('"') && current) fields[current] += JSON.parse(line);
    }
    const translated = fields.msgstr ?? fields["msgstr[0]"];
    if (fields.msgid && translated && !block.includes("#, fuzzy")) {
      found.set(fields.msgctxt ? `${fields.msgctxt}\u0004${fields.msgid}` : fields.msgid, translated);
    }
  }
  return found;
}

const zh = catalogue();
export const untranslated = [];
const look = (key, text) => {
  if (zh.has(key)) return zh.get(key);
  untranslated.push(text);
  return text;
};
globalThis.gettext = (text) => look(text, text);
globalThis.pgettext = (context, text) => look(`${context}\u0004${text}`, text);
