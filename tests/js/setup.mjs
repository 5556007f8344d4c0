/**
 * What the pages' scripts find on every page and Node has not: Django's JavaScript catalog (templates/base.html
 * loads it), untranslated, as the English page has it. Imported first by every test file, before the modules.
 */

globalThis.gettext = (text) => text;
globalThis.pgettext = (context, text) => text;
globalThis.ngettext = (singular, plural, count) => (count === 1 ? singular : plural);
// As django.views.i18n's catalog writes it.
globalThis.interpolate = (format, values, named) =>
  named
    ? format.replace(/%\(\w+\)s/g, (match) => String(values[match.slice(2, -2)]))
    : format.replace(/%s/g, () => String(values.shift()));
