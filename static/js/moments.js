// Every moment a page names, written one way: the page's language and the
// reader's own time zone (the browser's). The server writes
// <time datetime="…" data-moment> with a fallback in UTC; this module rewrites
// each of them on load, and the board writes its own with formatMoment.
// Pure apart from Intl and the page, so node tests formatMoment.

/** @type {Intl.DateTimeFormatOptions} */
const FORMAT = { day: "numeric", month: "long", hour: "2-digit", minute: "2-digit" };

/**
 * "7 de diciembre, 16:53" in Spanish, "December 7 at 04:53 PM" in English.
 * @param {string} iso
 * @param {string} lang
 * @param {string} [timeZone]  the browser's own unless given
 */
export function formatMoment(iso, lang, timeZone = undefined) {
  return new Intl.DateTimeFormat(lang, { ...FORMAT, timeZone }).format(new Date(iso));
}

/** @param {ParentNode} [root] */
export function localizeMoments(root = document) {
  const lang = document.documentElement.lang || "es";
  for (const time of root.querySelectorAll("time[data-moment]")) {
    const iso = time.getAttribute("datetime");
    if (iso && !Number.isNaN(Date.parse(iso))) time.textContent = formatMoment(iso, lang);
  }
}

if (typeof document !== "undefined") localizeMoments();
