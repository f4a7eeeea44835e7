// The board's words: the translated strings the page hands over as JSON
// (templates/games/_board_strings.html), their plural forms, and the few
// texts made from a date. Pure apart from Intl, so node tests it.
import { formatMoment } from "../moments.js";

/**
 * `t(key, values)`: the string `key` with its "{name}" placeholders filled in.
 * A string with plural forms ({one, other}, from the catalog's ngettext) takes
 * the form for `values.count`: "1 punto", "2 puntos". An unknown key reads as itself.
 */
export function createTexts(strings, lang = "es") {
  const plural = new Intl.PluralRules(lang);
  const relative = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });

  function t(key, values = {}) {
    let template = strings[key] ?? key;
    if (typeof template === "object") template = template[plural.select(values.count)] ?? template.other;
    return template.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
  }

  /** "hace 5 minutos", "ayer"; null under a minute ("desde este minuto" reads oddly). */
  function since(iso, now = Date.now()) {
    const seconds = (Date.parse(iso) - now) / 1000;
    const units = [["day", 86400], ["hour", 3600], ["minute", 60]];
    for (const [unit, size] of units) {
      if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
    }
    return null;
  }

  /** A moment as every page writes it: the reader's language and time zone. */
  function moment(iso) {
    return formatMoment(iso, lang);
  }

  /** A number as the reader's language writes it, with `digits` decimals: "3,2" in Spanish. */
  function number(value, digits = 1) {
    return new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
  }

  return { t, since, moment, number };
}

/** Dice as players write them, the higher first: "5-1", also for an opening roll of 1 and 5. */
export function diceText(dice) {
  const [high, low] = [...dice].sort((a, b) => b - a);
  return `${high}-${low}`;
}
