// The board's words and their plural forms: run with `node --test tests/js`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createTexts, diceText } from "../../static/js/board/texts.js";

const STRINGS = {
  wait_move: "Le toca mover a {name}.",
  score: { one: "{count} punto", other: "{count} puntos" },
  pips: { one: "{count} pip", other: "{count} pips" },
  only_other: { other: "{count} cosas" },
};

test("placeholders are filled in, a missing value reads as nothing", () => {
  const { t } = createTexts(STRINGS, "es");
  assert.equal(t("wait_move", { name: "bob" }), "Le toca mover a bob.");
  assert.equal(t("wait_move"), "Le toca mover a .");
});

test("an unknown key reads as itself, so a missing string shows and breaks nothing", () => {
  const { t } = createTexts(STRINGS, "es");
  assert.equal(t("no_such_key"), "no_such_key");
});

test("a plural string takes the form for its count, in the page's language", () => {
  const es = createTexts(STRINGS, "es").t;
  assert.equal(es("score", { count: 1 }), "1 punto");
  assert.equal(es("score", { count: 0 }), "0 puntos");
  assert.equal(es("score", { count: 2 }), "2 puntos");
  const en = createTexts(STRINGS, "en").t;
  assert.equal(en("pips", { count: 1 }), "1 pip");
  assert.equal(en("pips", { count: 167 }), "167 pips");
  assert.equal(en("only_other", { count: 1 }), "1 cosas", "a missing form falls back to other");
});

test("since says how long ago in words, nothing under a minute", () => {
  const { since } = createTexts(STRINGS, "es");
  const now = Date.parse("2026-03-01T12:00:00Z");
  assert.equal(since("2026-03-01T11:59:30Z", now), null);
  assert.equal(since("2026-03-01T11:55:00Z", now), "hace 5 minutos");
  assert.equal(since("2026-02-28T12:00:00Z", now), "ayer");
  assert.equal(createTexts(STRINGS, "en").since("2026-03-01T09:00:00Z", now), "3 hours ago");
});

test("dice are said as the board shows them", () => {
  assert.equal(diceText([3, 1]), "3-1");
  assert.equal(diceText([1, 5]), "5-1"); // an opening roll: alice's 1, bob's 5
  assert.equal(diceText([2, 6]), "6-2");
  assert.equal(diceText([6, 6]), "6-6");
});

test("numbers are written as the page's language writes them", () => {
  assert.equal(createTexts(STRINGS, "es").number(3.25), "3,3");
  assert.equal(createTexts(STRINGS, "en").number(3.25), "3.3");
  assert.equal(createTexts(STRINGS, "es").number(0, 1), "0,0");
});

test("every moment is written one way: the language's words, the reader's zone", async () => {
  const { formatMoment } = await import("../../static/js/moments.js");
  const iso = "2026-12-07T16:53:37+00:00";
  const lima = formatMoment(iso, "es", "America/Lima");
  assert.match(lima, /^7 de diciembre.*11:53$/);
  assert.doesNotMatch(lima, /2026|:37/);
  assert.match(formatMoment(iso, "en", "UTC"), /^December 7.*04:53\sPM$/);
});
