// The state read for the viewer (table.js): run with `node --test tests/js`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { overtaken, serialOf, shownPositionId } from "../../static/js/board/table.js";

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

test("an ETag's serial is read from the tags the server writes, weak ones too", () => {
  assert.equal(serialOf('"v12-s340-0123456789abcdef-n"'), 340);
  assert.equal(serialOf('W/"v12-s7-0123456789abcdef"'), 7);
  assert.equal(serialOf('"something-else"'), null);
  assert.equal(serialOf(null), null);
});

test("an answer read before the board's own newer one is overtaken; a newer one is not", () => {
  const old = { version: 5 };
  const shown = '"v5-s20-0123456789abcdef-n"';
  // A poll that left before the viewer's written answer (serial 20) and came back after it.
  assert.equal(overtaken(old, shown, { version: 5 }, '"v5-s19-0123456789abcdef-n"'), true);
  assert.equal(overtaken(old, shown, { version: 5 }, '"v5-s21-0123456789abcdef-n"'), false);
  assert.equal(overtaken(old, shown, { version: 5 }, '"v5-s20-fedcba9876543210-n"'), false);
  assert.equal(overtaken(old, shown, { version: 4 }, '"v4-s30-0123456789abcdef-n"'), true);
  assert.equal(overtaken(old, shown, { version: 6 }, '"v6-s1-0123456789abcdef-n"'), false);
  assert.equal(overtaken(old, shown, { version: 5 }, null), false); // no tag: taken as it is
  assert.equal(overtaken(null, null, { version: 1 }, null), false);
});
