// The state read for the viewer (table.js): run with `node --test tests/js`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { shownPositionId } from "../../static/js/board/table.js";

// The Position IDs the server sent: its own strings, never worked out here.
const POSITION = { side: 0, id: "ID-OF-POSITION-SIDE", other_side_id: "ID-OF-THE-OTHER-SIDE", me: [], them: [] };

function modelFor(side, { chosen = [], flipped = false, turn = 0 } = {}) {
  return {
    state: {
      version: 3,
      viewer: { side },
      seats: [],
      match: {
        phase: "move", turn, dice: [3, 1], allowed: side === turn ? ["play"] : [],
        position: side === 1 ? { ...POSITION, side: 1 } : POSITION,
      },
    },
    flipped, chosen, options: [], optionsFor: null, selected: null,
  };
}

test("the Position ID shown is the state's for the side drawn at the bottom", () => {
  assert.equal(shownPositionId(modelFor(0)), "ID-OF-POSITION-SIDE");
  assert.equal(shownPositionId(modelFor(1)), "ID-OF-POSITION-SIDE", "a seat sees the state from its own side");
  assert.equal(shownPositionId(modelFor(null)), "ID-OF-POSITION-SIDE", "a spectator sees side 0 first");
  assert.equal(shownPositionId(modelFor(null, { flipped: true })), "ID-OF-THE-OTHER-SIDE");
});

test("with a play being built the Position ID is the one its last option leads to", () => {
  const chosen = [
    { from: 8, to: 5, path: [[8, 5]], position_id: "AFTER-8-5" },
    { from: 6, to: 5, path: [[6, 5]], position_id: "AFTER-8-5-6-5" },
  ];
  assert.equal(shownPositionId(modelFor(0, { chosen })), "AFTER-8-5-6-5");
  assert.equal(shownPositionId(modelFor(0, { chosen: chosen.slice(0, 1) })), "AFTER-8-5");
  // Steps left over from a turn that has passed are not the checkers drawn.
  assert.equal(shownPositionId(modelFor(0, { chosen, turn: 1 })), "ID-OF-POSITION-SIDE");
});
