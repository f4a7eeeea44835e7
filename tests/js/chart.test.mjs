// The review's chart, its pure part (chart.js): run with `node --test tests/js`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { layout, range, rollBefore, stepFor } from "../../static/js/review/chart.js";

const point = (turn, y, side = 0) => ({ turn, side, dice: "3-1", y, luck: 0, mark: "", mark_text: "" });
const percent = { scale: "percent", points: [point(2, 50), point(4, 75, 1), point(6, 25)], end: 100, errors: [] };

test("a chance runs from 0 to 100; points round out to whole points, at least -1 to 1", () => {
  assert.deepEqual(range(percent), [0, 100]);
  assert.deepEqual(range({ scale: "points", points: [point(1, 0.2), point(2, -0.4)], end: 2, errors: [] }), [-1, 2]);
  assert.deepEqual(range({ scale: "points", points: [point(1, -2.5)], end: 0.5, errors: [] }), [-3, 1]);
});

test("rolls are evenly spaced, the end last, and a higher chance is drawn higher", () => {
  const spots = layout(percent, 442, 134); // 390 × 100 inside the padding, 3 gaps
  assert.deepEqual(spots.line.map((s) => s.x), [40, 170, 300, 430]);
  assert.deepEqual(spots.line.map((s) => s.y), [62, 37, 87, 12]);
});

test("an error sits halfway between the roll it was made with and the next roll", () => {
  const chart = { ...percent, errors: [{ turn: 5, side: 1, mark: "blunder", mark_text: "" }] };
  const spots = layout(chart, 442, 134);
  assert.deepEqual(spots.errors, [{ x: 235, y: 62 }]);
  assert.equal(rollBefore(chart, 5), 1);
  assert.equal(rollBefore(chart, 1), 0);
});

test("a roll shows the play made with it; an error shows its own decision", () => {
  const steps = [
    { turn: 3, kind: "play" },
    { turn: 4, kind: "no_double" },
    { turn: 5, kind: "play" },
  ];
  assert.equal(stepFor(steps, 2, true), 0);
  assert.equal(stepFor(steps, 4, true), 2, "past the cube decision on the same turn");
  assert.equal(stepFor(steps, 4, false), 1);
  assert.equal(stepFor(steps, 9, true), 2, "after the last decision: the last one");
  assert.equal(stepFor([], 1, true), -1);
});
