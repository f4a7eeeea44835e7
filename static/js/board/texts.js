// The board's words: the translated strings the page hands over as JSON
// (templates/games/_board_strings.html), their plural forms, and the few
// texts made from a date. Pure apart from Intl, so node tests it.
/** @import { Texts } from "../types.js" */
import { formatMoment } from "../moments.js";

/**
 * The page's strings by key: a string, or its plural forms by Intl.PluralRules' category.
 * @typedef {Record<string, string | Record<string, string>>} Strings
 */

/**
 * `t(key, values)`: the string `key` with its "{name}" placeholders filled in.
 * A string with plural forms ({one, other}, from the catalog's ngettext) takes
 * the form for `values.count`: "1 punto", "2 puntos". An unknown key reads as itself.
 * @param {Strings} strings
 * @param {string} [lang]
 * @returns {Texts}
 */
export function createTexts(strings, lang = "es") {
  const plural = new Intl.PluralRules(lang);
  const relative = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });

  /**
   * @param {string} key
   * @param {Record<string, string | number>} [values]
   */
  function t(key, values = {}) {
    let template = strings[key] ?? key;
    // Without a count the plural rules read NaN: the "other" form.
    if (typeof template === "object") template = template[plural.select(Number(values.count))] ?? template.other;
    return template.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
  }

  /**
   * "hace 5 minutos", "ayer"; null under a minute ("desde este minuto" reads oddly).
   * @param {string} iso
   * @param {number} [now]
   */
  function since(iso, now = Date.now()) {
    const seconds = (Date.parse(iso) - now) / 1000;
    /** @type {[Intl.RelativeTimeFormatUnit, number][]} */
    const units = [["day", 86400], ["hour", 3600], ["minute", 60]];
    for (const [unit, size] of units) {
      if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
    }
    return null;
  }

  /**
   * A moment as every page writes it: the reader's language and time zone.
   * @param {string} iso
   */
  function moment(iso) {
    return formatMoment(iso, lang);
  }

  /**
   * A number as the reader's language writes it, with `digits` decimals: "3,2" in Spanish.
   * @param {number} value
   * @param {number} [digits]
   */
  function number(value, digits = 1) {
    return new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
  }

  return { t, since, moment, number };
}

/**
 * Dice as players write them, the higher first: "5-1", also for an opening roll of 1 and 5.
 * No dice (none rolled yet) read as nothing.
 * @param {number[] | null} dice
 */
export function diceText(dice) {
  if (!dice) return "";
  const [high, low] = [...dice].sort((a, b) => b - a);
  return `${high}-${low}`;
}
