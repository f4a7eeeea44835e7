// The page's dice check against the Python engine: run with `node --test tests/js`.
// dice_vector.json is written by games.engine.dice (tests/engine/test_dice.py checks it).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { commitmentOf, pairAt, rollsOf, verifyGame } from "../../static/js/dice.js";

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
