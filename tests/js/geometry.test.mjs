// Pure board geometry: run with `node --test tests/js`.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  BAR, OFF, WIDTH, HEIGHT, applySteps, checkerCentre, focusRows, lastPlay, moveFocus,
  pips, pointBox, spotKey, spotNumber, takenParam, trayBox, viewerBoard,
} from "../../static/js/board/geometry.js";

const INITIAL = [0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0];

test("the home board sits bottom right, the 24-point top right", () => {
  const one = pointBox(1);
  const six = pointBox(6);
  const twelve = pointBox(12);
  const thirteen = pointBox(13);
  const twentyFour = pointBox(24);
  assert.equal(one.top, false);
  assert.equal(twentyFour.top, true);
  assert.ok(one.x > six.x, "1 is right of 6");
  assert.ok(six.x > twelve.x, "the home board is right of the outer board");
  assert.equal(twelve.x, thirteen.x, "12 and 13 face each other");
  assert.equal(one.x, twentyFour.x, "1 and 24 face each other");
});

test("the home-left setting mirrors every point and the tray", () => {
  for (let n = 1; n <= 24; n += 1) {
    const right = pointBox(n);
    const left = pointBox(n, { homeLeft: true });
    assert.equal(left.x, WIDTH - right.x - right.width);
  }
  assert.ok(trayBox({ homeLeft: true }).x < pointBox(1, { homeLeft: true }).x);
  assert.ok(trayBox().x > pointBox(1).x);
});

test("no two points overlap and all lie inside the board", () => {
  const spans = [];
  for (let n = 1; n <= 24; n += 1) {
    const box = pointBox(n);
    assert.ok(box.x >= 0 && box.x + box.width <= WIDTH);
    spans.push(`${box.top}:${box.x}`);
  }
  assert.equal(new Set(spans).size, 24);
  assert.throws(() => pointBox(25), RangeError);
});

test("checkers stack from the edge and a tall stack stays inside its point", () => {
  const first = checkerCentre(6, 0, 5);
  const second = checkerCentre(6, 1, 5);
  assert.ok(second.y < first.y, "a bottom stack grows upwards");
  const top = checkerCentre(13, 14, 15);
  assert.ok(top.y < HEIGHT / 2, "fifteen checkers on 13 stay in the top half");
});

test("the viewer's board reads the opponent's points from the other side", () => {
  const board = viewerBoard(INITIAL, INITIAL);
  assert.equal(board.mine[24], 2);
  assert.equal(board.theirs[1], 2, "their 24-point is my 1-point");
  assert.equal(board.theirs[12], 5);
  assert.deepEqual(pips(board), [167, 167]);
  const flipped = viewerBoard(INITIAL, [0, ...INITIAL.slice(1, 25).map(() => 0), 0]);
  assert.equal(flipped.mine[6], 5);
});

test("a taken step moves the checker and a hit goes to the bar", () => {
  const me = INITIAL.slice();
  const them = new Array(26).fill(0);
  them[25 - 5] = 1; // a blot on my 5-point
  const board = applySteps(viewerBoard(me, them), [[13, 8], [8, 5]]);
  assert.equal(board.mine[13], 4);
  assert.equal(board.mine[5], 1);
  assert.equal(board.mine[8], 3);
  assert.equal(board.theirs[5], 0);
  assert.equal(board.theirs[BAR], 1);
  const off = applySteps(board, [[6, OFF]]);
  assert.equal(off.mine[OFF], 1);
});

test("arrow keys walk the rows as drawn, through the bar and the tray", () => {
  assert.deepEqual(focusRows()[1].slice(-3), ["2", "1", "off"]);
  const walk = (from, key, options) => moveFocus(from, key, options).key;
  assert.equal(walk("7", "ArrowRight"), "bar");
  assert.equal(walk("bar", "ArrowRight"), "6");
  assert.equal(walk("bar", "ArrowRight", { row: 0 }), "19", "the bar seen from the top row");
  assert.equal(walk("1", "ArrowUp"), "24");
  assert.equal(walk("13", "ArrowDown"), "12");
  assert.equal(walk("12", "ArrowLeft"), "12", "the edge holds the focus");
  assert.equal(walk("1", "ArrowLeft", { homeLeft: true }), "off");
  assert.equal(walk(null, "ArrowLeft"), "1");
  assert.deepEqual(moveFocus("off", "ArrowUp"), { key: "off", row: 0 });
});

test("spot keys and the taken parameter round-trip", () => {
  assert.equal(spotKey(BAR), "bar");
  assert.equal(spotKey(OFF), "off");
  assert.equal(spotNumber(spotKey(13)), 13);
  assert.equal(takenParam([[25, 22], [6, 0]]), "25-22,6-0");
});

test("the last play is shown in the viewer's numbering", () => {
  const history = [
    { game: 1, kind: "roll", side: 0, dice: [3, 1] },
    { game: 1, kind: "play", side: 0, steps: [[8, 5], [6, 5]] },
    { game: 1, kind: "roll", side: 1, dice: [6, 4] },
    { game: 1, kind: "play", side: 1, notation: "24/14", steps: [[24, 18], [18, 14]] },
  ];
  assert.deepEqual(lastPlay(history, 1, 0), { side: 1, notation: "24/14", steps: [[1, 7], [7, 11]] });
  assert.deepEqual(lastPlay(history, 1, 1).steps, [[24, 18], [18, 14]]);
  assert.equal(lastPlay(history, 2, 0), null, "a new game starts unmarked");
});
