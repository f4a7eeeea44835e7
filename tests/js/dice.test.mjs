// The page's dice check against the Python engine: run with `node --test tests/js`.
// dice_vector.json is written by games.engine.dice (tests/engine/test_dice.py checks it).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { commitmentOf, pairAt, rollsOf, verdictText, verifyGame } from "../../static/js/dice.js";

const vector = JSON.parse(readFileSync(new URL("./dice_vector.json", import.meta.url)));

test("the seed gives the commitment the engine published", async () => {
  assert.equal(await commitmentOf(vector.seed), vector.commitment);
});

test("every pair of the stream is the engine's, rejected bytes included", async () => {
  assert.deepEqual(await rollsOf(vector.seed, vector.rolls.length), vector.rolls);
});

test("a digest that runs out goes on with the next message of the same pair", async () => {
  const asked = [];
  const digest = async (message) => {
    asked.push(message);
    // The first digest is all skipped bytes; the second starts with faces 1 and 2.
    return message === "mesa-dice:7" ? new Uint8Array(32).fill(255) : Uint8Array.from([252, 0, 7, 3]);
  };
  assert.deepEqual(await pairAt(digest, 7), [1, 2]);
  assert.deepEqual(asked, ["mesa-dice:7", "mesa-dice:7:1"]);
});

test("a game's record is checked roll by roll and a changed roll is found", async () => {
  const game = { seed: vector.seed, commitment: vector.commitment, recorded: vector.rolls.slice(0, 12) };
  assert.deepEqual(await verifyGame(game), { commitment: true, rolls: 12, mismatches: [] });
  const changed = vector.rolls.slice(0, 12).map((pair) => pair.slice());
  changed[5] = [changed[5][0] % 6 + 1, changed[5][1]];
  const answer = await verifyGame({ ...game, recorded: changed });
  assert.deepEqual(answer.mismatches.map((m) => m.n), [5]);
  assert.deepEqual(answer.mismatches[0].derived, vector.rolls[5]);
  const wrong = await verifyGame({ ...game, commitment: "00".repeat(32) });
  assert.equal(wrong.commitment, false);
});

test("the verdict says every problem found, or the count checked in the plural", () => {
  const t = (key, values = {}) => `${key}${JSON.stringify(values)}`;
  const fine = verdictText({ commitment: true, rolls: 3, mismatches: [] }, [[1, 2], [3, 4], [5, 6]], 3, t);
  assert.deepEqual(fine, { ok: true, text: 'proof_ok{"count":3}' });
  const bad = verdictText(
    { commitment: false, rolls: 2, mismatches: [{ n: 1, recorded: [6, 1], derived: [5, 1] }] },
    [[1, 2], [6, 1]], 3, t,
  );
  assert.equal(bad.ok, false);
  assert.equal(
    bad.text,
    'proof_bad_commitment{} proof_bad_count{"recorded":2,"drawn":3} proof_bad_roll{"n":2,"recorded":"6-1","derived":"5-1"}',
  );
});
