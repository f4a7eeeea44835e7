// The move history laid out as a score sheet: run with `node --test tests/js`.
// The lines come written from the server (games/selectors/history.py, tested in
// tests/games/test_history.py); here only where each one stands.
import assert from "node:assert/strict";
import { test } from "node:test";

import { blockedRolls, historyByMove } from "../../static/js/board/history.js";

// What games.selectors.history.sheet_lines writes on the state's history entries.
const HISTORY = [
  { game: 1, side: 0, kind: "roll", dice: [4, 4], steps: null, opening: true, text: "Salida: alice saca 4, bob saca 4" },
  { game: 1, side: 0, kind: "roll", dice: [6, 5], steps: null, opening: true, text: "Salida: alice saca 6, bob saca 5" },
  { game: 1, side: 0, kind: "play", notation: "24/13", steps: [[24, 18], [18, 13]], text: "alice 65: 24/13" },
  { game: 1, side: 1, kind: "roll", dice: [6, 6], steps: null, text: null },
  { game: 1, side: 1, kind: "play", notation: "24/18(2) 13/1*", steps: [], text: "bob 66: 24/18(2) 13/1*" },
  { game: 1, side: 0, kind: "roll", dice: [6, 6], steps: [], blocked: true, text: "alice 66: no puede mover" },
  { game: 1, side: 1, kind: "roll", dice: [2, 1], steps: null, text: null },
  { game: 1, side: 1, kind: "double", cube_value: 1, text: "bob dobla a 2" },
  { game: 1, side: 0, kind: "take", cube_value: 2, text: "alice acepta el cubo en 2" },
];

test("a tied opening rolls again and stands before the numbered moves", () => {
  const [game] = historyByMove(HISTORY);
  assert.equal(game.game, 1);
  assert.deepEqual(game.before, ["Salida: alice saca 4, bob saca 4", "Salida: alice saca 6, bob saca 5"]);
  assert.deepEqual(game.moves[0], { number: 1, lines: ["alice 65: 24/13", "bob 66: 24/18(2) 13/1*"] });
});

test("moves are numbered per pair of turns, a cube exchange inside the move it interrupts", () => {
  const [game] = historyByMove(HISTORY);
  assert.deepEqual(game.moves, [
    { number: 1, lines: ["alice 65: 24/13", "bob 66: 24/18(2) 13/1*"] },
    { number: 2, lines: ["alice 66: no puede mover", "bob dobla a 2", "alice acepta el cubo en 2"] },
  ]);
  assert.deepEqual(game.after, []);
});

test("when the second player doubles and then plays, the starter's next play opens a new move", () => {
  const more = [
    ...HISTORY,
    { game: 1, side: 1, kind: "play", notation: "13/11 6/5", steps: [[13, 11], [6, 5]], text: "bob 21: 13/11 6/5" },
    { game: 1, side: 0, kind: "roll", dice: [3, 1], steps: null, text: null },
    { game: 1, side: 0, kind: "double", cube_value: 2, text: "alice dobla a 4" },
    { game: 1, side: 1, kind: "drop", text: "bob rechaza el cubo y pierde la partida" },
    // The server records the "next game" turn in the game it opens.
    { game: 2, side: 0, kind: "next_game", text: "Empieza la partida siguiente" },
    { game: 2, side: 1, kind: "roll", dice: [1, 2], steps: null, opening: true, text: "Salida: alice saca 1, bob saca 2" },
    { game: 2, side: 1, kind: "play", notation: "13/11 6/5", steps: [[13, 11], [6, 5]], text: "bob 21: 13/11 6/5" },
  ];
  const [first, second] = historyByMove(more);
  assert.deepEqual(first.moves.map((move) => move.number), [1, 2, 3]);
  assert.deepEqual(first.moves[1].lines.at(-1), "bob 21: 13/11 6/5");
  assert.deepEqual(first.moves[2].lines, ["alice dobla a 4", "bob rechaza el cubo y pierde la partida"]);
  assert.deepEqual(first.after, []);
  assert.deepEqual(first.next, ["Empieza la partida siguiente"]);
  assert.deepEqual(second.before, ["Salida: alice saca 1, bob saca 2"]);
  assert.deepEqual(second.moves, [{ number: 1, lines: ["bob 21: 13/11 6/5"] }]);
  // The game in play does not end on "the next game starts".
  assert.deepEqual(second.after, []);
  assert.deepEqual(second.next, []);
});

test("a history from before the lines were written shows no line rather than a wrong one", () => {
  const [game] = historyByMove([{ game: 1, side: 0, kind: "roll", dice: [3, 1] }]);
  assert.deepEqual(game, { game: 1, before: [], moves: [], after: [], next: [] });
});

test("the blocked rolls since the last action are the ones the board announces", () => {
  assert.deepEqual(blockedRolls(HISTORY.slice(0, 7), 1).map((turn) => turn.side), [0]);
  assert.deepEqual(blockedRolls(HISTORY, 1), [], "a cube action came after");
  assert.deepEqual(blockedRolls(HISTORY.slice(0, 7), 2), [], "another game has none yet");
});
