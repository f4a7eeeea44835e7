// The move history in standard notation: run with `node --test tests/js`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { blockedRolls, diceWord, historyByMove } from "../../static/js/board/history.js";

const names = ["alice", "bob"];
const nameOf = (side) => names[side];
// A stand-in for the translations: the key and its values, readable in asserts.
const t = (key, values = {}) => {
  if (key === "history_play") return `${values.name} ${values.dice}: ${values.play}`;
  if (key === "cannot_move") return "-";
  const rest = Object.entries(values).map(([k, v]) => `${k}=${v}`).join(" ");
  return rest ? `${key} ${rest}` : key;
};

const HISTORY = [
  { game: 1, side: 0, kind: "roll", dice: [4, 4], steps: null },
  { game: 1, side: 0, kind: "roll", dice: [6, 5], steps: null },
  { game: 1, side: 0, kind: "play", notation: "24/13", steps: [[24, 18], [18, 13]] },
  { game: 1, side: 1, kind: "roll", dice: [6, 6], steps: null },
  { game: 1, side: 1, kind: "play", notation: "24/18(2) 13/1*", steps: [] },
  { game: 1, side: 0, kind: "roll", dice: [6, 6], steps: [], blocked: true },
  { game: 1, side: 1, kind: "roll", dice: [2, 1], steps: null },
  { game: 1, side: 1, kind: "double", cube_value: 1 },
  { game: 1, side: 0, kind: "take", cube_value: 2 },
];

test("a tied opening rolls again and stands before the numbered moves", () => {
  const [game] = historyByMove(HISTORY, { nameOf, t });
  assert.equal(game.game, 1);
  assert.deepEqual(game.before, [
    "opening_roll first=alice a=4 second=bob b=4",
    "opening_roll first=alice a=6 second=bob b=5",
  ]);
  assert.deepEqual(game.moves[0], { number: 1, lines: ["alice 65: 24/13", "bob 66: 24/18(2) 13/1*"] });
});

test("moves are numbered per pair of turns, a cube exchange inside the move it interrupts", () => {
  const [game] = historyByMove(HISTORY, { nameOf, t });
  assert.deepEqual(game.moves, [
    { number: 1, lines: ["alice 65: 24/13", "bob 66: 24/18(2) 13/1*"] },
    { number: 2, lines: ["alice 66: -", "h_double name=bob value=2", "h_take name=alice value=2"] },
  ]);
  assert.deepEqual(game.after, []);
});

test("when the second player doubles and then plays, the starter's next play opens a new move", () => {
  const more = [
    ...HISTORY,
    { game: 1, side: 1, kind: "play", notation: "13/11 6/5", steps: [[13, 11], [6, 5]] },
    { game: 1, side: 0, kind: "roll", dice: [3, 1], steps: null },
    { game: 1, side: 0, kind: "double", cube_value: 2 },
    { game: 1, side: 1, kind: "drop" },
    { game: 1, side: 0, kind: "next_game" },
    { game: 2, side: 1, kind: "roll", dice: [1, 2], steps: null },
    { game: 2, side: 1, kind: "play", notation: "13/11 6/5", steps: [[13, 11], [6, 5]] },
  ];
  const [first, second] = historyByMove(more, { nameOf, t });
  assert.deepEqual(first.moves.map((move) => move.number), [1, 2, 3]);
  assert.deepEqual(first.moves[1].lines.at(-1), "bob 21: 13/11 6/5");
  assert.deepEqual(first.moves[2].lines, ["h_double name=alice value=4", "h_drop name=bob"]);
  assert.deepEqual(first.after, ["h_next_game"]);
  assert.deepEqual(second.before, ["opening_roll first=alice a=1 second=bob b=2"]);
  assert.deepEqual(second.moves, [{ number: 1, lines: ["bob 21: 13/11 6/5"] }]);
});

test("the blocked rolls since the last action are the ones the board announces", () => {
  assert.deepEqual(blockedRolls(HISTORY.slice(0, 7), 1).map((turn) => turn.side), [0]);
  assert.deepEqual(blockedRolls(HISTORY, 1), [], "a cube action came after");
  assert.deepEqual(blockedRolls(HISTORY.slice(0, 7), 2), [], "another game has none yet");
});

test("dice are written higher first", () => {
  assert.equal(diceWord([3, 5]), "53");
  assert.equal(diceWord([2, 2]), "22");
});
