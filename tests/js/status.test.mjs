// The status line in words, read from a state: run with `node --test tests/js`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { statusLines } from "../../static/js/board/status.js";
import { bottomSide, nameOf, turnComplete } from "../../static/js/board/table.js";

// A stand-in for the translations: the key and its values, readable in asserts.
const t = (key, values = {}) => {
  const rest = Object.entries(values).map(([k, v]) => `${k}=${v}`).join(" ");
  return rest ? `${key} ${rest}` : key;
};

function modelFor(side, match) {
  return {
    state: {
      version: 7,
      viewer: { side },
      seats: [{ number: 1, nickname: "alice", side: 0 }, { number: 2, nickname: "bob", side: 1 }],
      match: {
        status: "playing", phase: "move", turn: 0, dice: [3, 1], allowed: side === 0 ? ["play"] : [],
        history: [], game_number: 1, games: [], cube: { value: 1, owner: null }, format: "single",
        score: [0, 0], winner: null, ...match,
      },
    },
    flipped: false, chosen: [], options: [], optionsFor: null, selected: null,
  };
}

test("the player on move is told their dice, the other who moves", () => {
  assert.deepEqual(statusLines(modelFor(0), t), ["your_move dice=3-1"]);
  assert.deepEqual(statusLines(modelFor(1), t), ["wait_move name=alice"]);
  assert.deepEqual(statusLines(modelFor(null), t), ["wait_move name=alice"]);
});

test("a play is complete once the server offers nothing after the chosen steps", () => {
  const model = modelFor(0);
  model.chosen = [{ path: [[8, 5]] }, { path: [[6, 5]] }];
  model.optionsFor = "7|8-5,6-5";
  assert.ok(turnComplete(model));
  assert.deepEqual(statusLines(model, t), ["play_complete"]);
});

test("the other side's last play and a turn that passed come before what happens now", () => {
  const history = [
    { game: 1, side: 1, kind: "roll", dice: [6, 4] },
    { game: 1, side: 1, kind: "play", notation: "24/18 13/9", steps: [[24, 18], [13, 9]] },
    { game: 1, side: 0, kind: "roll", dice: [6, 6], steps: [], blocked: true },
  ];
  const lines = statusLines(modelFor(0, { turn: 1, phase: "roll", dice: null, history }), t);
  assert.deepEqual(lines, ["last_play name=bob play=24/18 13/9", "no_move_you dice=6-6", "wait_roll name=bob"]);
});

test("the end of the match is said to each: you, and who won", () => {
  const over = { status: "finished", phase: "game_over", turn: null, winner: 1, end_reason: "absence" };
  assert.deepEqual(statusLines(modelFor(0, over), t), ["you_absent winner_single name=bob"]);
  assert.deepEqual(statusLines(modelFor(1, over), t), ["you_won h_absence name=alice. winner_single name=bob"]);
  assert.deepEqual(statusLines(modelFor(null, over), t), ["h_absence name=alice. winner_single name=bob"]);
});

test("a match given up ends on the server's sentence: who, the score then, what the winner got", () => {
  const outcome = "alice abandonó el encuentro en la partida 2, con alice 1, bob 0 (a 5 puntos): bob gana el encuentro.";
  const over = {
    status: "finished", phase: "match_over", turn: null, winner: 1, end_reason: "resign",
    format: "match", score: [1, 0], outcome,
  };
  assert.deepEqual(statusLines(modelFor(0, over), t), [`you_forfeited ${outcome}`]);
  assert.deepEqual(statusLines(modelFor(1, over), t), [`you_won ${outcome}`]);
  assert.deepEqual(statusLines(modelFor(null, over), t), [outcome]);
});

test("the doubler is told first that the double was answered as written ahead", () => {
  const history = [
    { game: 1, side: 1, kind: "double", cube_value: 1 },
    { game: 1, side: 0, kind: "take", reason: "conditional", cube_value: 2 },
    { game: 1, side: 1, kind: "roll", dice: [6, 4] },
  ];
  const state = { turn: 1, phase: "move", dice: [6, 4], history, cube: { value: 2, owner: 0 } };
  assert.deepEqual(statusLines(modelFor(1, state), t), [
    "written_take name=alice value=2", "your_move dice=6-4",
  ]);
  // Not to the one who wrote it, and no longer once the doubler has played.
  assert.deepEqual(statusLines(modelFor(0, state), t), ["wait_move name=bob"]);
  const played = [...history, { game: 1, side: 1, kind: "play", notation: "24/14", steps: [[24, 14]] }];
  const after = { ...state, turn: 0, phase: "roll", dice: null, history: played };
  assert.deepEqual(statusLines(modelFor(1, after), t), ["wait_roll name=alice"]);
  // A beaver written ahead: the doubler reads it above the question it asks.
  const beaver = [
    { game: 1, side: 1, kind: "double", cube_value: 1 },
    { game: 1, side: 0, kind: "beaver", reason: "conditional", cube_value: 2 },
  ];
  const asked = { turn: 1, phase: "doubled", dice: null, history: beaver, cube: { value: 2, owner: 0 } };
  assert.deepEqual(statusLines(modelFor(1, asked), t), [
    "written_beaver name=alice value=4", "doubled_you name=alice value=4",
  ]);
});

test("a spectator sees side 0 at the bottom until they flip the board", () => {
  const model = modelFor(null);
  assert.equal(bottomSide(model), 0);
  model.flipped = true;
  assert.equal(bottomSide(model), 1);
  assert.equal(bottomSide(modelFor(1)), 1);
  assert.equal(nameOf(model, 5), "?");
});
