// What the viewer leaves written (conditional.js): run with `node --test tests/js`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ROLLS, answerChoices, tableWith } from "../../static/js/board/conditional.js";

test("the table offers the 21 rolls once each, higher die first", () => {
  assert.equal(ROLLS.length, 21);
  assert.equal(new Set(ROLLS.map(([a, b]) => `${a}-${b}`)).size, 21);
  assert.ok(ROLLS.every(([a, b]) => a >= b));
});

test("the answer choices mark the recorded answer, and beaver only where allowed", () => {
  const plain = answerChoices({ answer: "take", may_beaver: false });
  assert.deepEqual(plain.map((c) => c.value), ["", "take", "drop"]);
  assert.deepEqual(plain.filter((c) => c.checked).map((c) => c.value), ["take"]);
  const beavers = answerChoices({ answer: null, may_beaver: true });
  assert.deepEqual(beavers.map((c) => c.value), ["", "take", "drop", "beaver"]);
  assert.deepEqual(beavers.filter((c) => c.checked).map((c) => c.value), [""], "nothing written: ask me");
});

test("writing a roll replaces that roll only, and an empty play clears it", () => {
  const plays = [
    { dice: [6, 5], play: [[8, 2], [8, 3]], notation: "8/2 8/3" },
    { dice: [2, 1], play: [[6, 4], [6, 5]], notation: "6/4 6/5" },
  ];
  assert.deepEqual(tableWith(plays, [6, 5], " 6/off 5/off "), [
    { dice: [2, 1], play: [[6, 4], [6, 5]] },
    { dice: [6, 5], play: "6/off 5/off" },
  ]);
  assert.deepEqual(tableWith(plays, [2, 1], ""), [{ dice: [6, 5], play: [[8, 2], [8, 3]] }]);
  assert.deepEqual(tableWith(null, [3, 3], "8/5(2)"), [{ dice: [3, 3], play: "8/5(2)" }]);
});
