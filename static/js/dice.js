// Check a game's dice in the browser, as games/engine/dice.py derives them:
// pair n comes from HMAC-SHA256(seed, "mesa-dice:<n>"); each byte below 252
// gives a face (byte % 6 + 1), bytes 252..255 are skipped, and a digest that
// runs out goes on with "mesa-dice:<n>:<k>", k = 1, 2, ... The commitment is the
// SHA-256 of the seed. Only WebCrypto, so node tests it too.
/** @import { Translate } from "./types.js" */
/** @import { h as makeElement } from "./board/dom.js" */

/** A roll as a pair of faces. @typedef {number[]} Pair */

/**
 * What verifyGame found.
 * @typedef {object} GameCheck
 * @property {boolean} commitment  the seed gives the published commitment
 * @property {number} rolls  how many rolls were checked
 * @property {{n: number, recorded: Pair, derived: Pair}[]} mismatches
 */

const ACCEPT_BELOW = 252; // the largest multiple of 6 that fits in a byte

/** @param {string} hex */
function bytesOf(hex) {
  const pairs = /^([0-9a-f]{2})+$/i.test(hex) ? hex.match(/../g) : null;
  if (!pairs) throw new Error("the seed is not hexadecimal");
  return Uint8Array.from(pairs, (pair) => parseInt(pair, 16));
}

/** @param {ArrayBuffer} buffer */
function hexOf(buffer) {
  return Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function subtle() {
  const api = globalThis.crypto && globalThis.crypto.subtle;
  if (!api) throw new Error("WebCrypto is not available (it needs a secure connection)");
  return api;
}

/**
 * The SHA-256 of the seed, in hex: what the table published before the first roll.
 * @param {string} seedHex
 */
export async function commitmentOf(seedHex) {
  return hexOf(await subtle().digest("SHA-256", bytesOf(seedHex)));
}

/**
 * Pair number `n` from `digest(message)` (a Uint8Array of HMAC-SHA256 under
 * the seed). The digest is a parameter so a test can make one run out.
 * @param {(message: string) => Promise<Uint8Array>} digest
 * @param {number} n
 * @returns {Promise<Pair>}
 */
export async function pairAt(digest, n) {
  /** @type {Pair} */
  const faces = [];
  for (let extension = 0; faces.length < 2; extension += 1) {
    const message = extension === 0 ? `mesa-dice:${n}` : `mesa-dice:${n}:${extension}`;
    for (const byte of await digest(message)) {
      if (byte < ACCEPT_BELOW) faces.push((byte % 6) + 1);
      if (faces.length === 2) break;
    }
  }
  return faces;
}

/**
 * The first `count` pairs of the seed's stream.
 * @param {string} seedHex
 * @param {number} count
 */
export async function rollsOf(seedHex, count) {
  const key = await subtle().importKey(
    "raw", bytesOf(seedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"],
  );
  const encoder = new TextEncoder();
  /** @param {string} message */
  const digest = async (message) => new Uint8Array(await subtle().sign("HMAC", key, encoder.encode(message)));
  /** @type {Pair[]} */
  const pairs = [];
  for (let n = 0; n < count; n += 1) pairs.push(await pairAt(digest, n));
  return pairs;
}

/**
 * Check a finished game: does the seed give the published commitment, and
 * does it give, one by one, every roll of the record (the opening rolls first)?
 * Returns {commitment: bool, rolls: count checked, mismatches: [{n, recorded, derived}]}.
 * @param {{seed: string, commitment: string, recorded: Pair[]}} game
 * @returns {Promise<GameCheck>}
 */
export async function verifyGame({ seed, commitment, recorded }) {
  const derived = await rollsOf(seed, recorded.length);
  /** @type {GameCheck["mismatches"]} */
  const mismatches = [];
  recorded.forEach((pair, n) => {
    if (pair[0] !== derived[n][0] || pair[1] !== derived[n][1]) {
      mismatches.push({ n, recorded: pair, derived: derived[n] });
    }
  });
  return { commitment: (await commitmentOf(seed)) === commitment.toLowerCase(), rolls: recorded.length, mismatches };
}

/**
 * The verdict in words, with `t(key, values)` from texts.js: "proof_ok" (a plural
 * by count), or each problem found. `drawn` is how many rolls the table says it drew.
 * Returns {ok, text}.
 * @param {GameCheck} answer
 * @param {Pair[]} recorded
 * @param {number} drawn
 * @param {Translate} t
 */
export function verdictText(answer, recorded, drawn, t) {
  const problems = [];
  if (!answer.commitment) problems.push(t("proof_bad_commitment"));
  if (recorded.length !== drawn) problems.push(t("proof_bad_count", { recorded: recorded.length, drawn }));
  for (const { n, recorded: was, derived } of answer.mismatches) {
    problems.push(t("proof_bad_roll", { n: n + 1, recorded: was.join("-"), derived: derived.join("-") }));
  }
  return problems.length
    ? { ok: false, text: problems.join(" ") }
    : { ok: true, text: t("proof_ok", { count: answer.rolls }) };
}

/**
 * A button that checks one game's dice and writes the verdict in `verdict`.
 * `game` {seed, commitment, rolls}; `recorded` the record's rolls in order.
 * @param {typeof makeElement} h  board/dom.js's h
 * @param {{seed: string, commitment: string, rolls: number}} game
 * @param {Pair[]} recorded
 * @param {Translate} t
 */
export function proofButton(h, game, recorded, t) {
  const verdict = h("p", { class: "proof-verdict", role: "status" });
  const button = h("button", { type: "button", class: "secondary proof-verify", text: t("proof_verify") });
  button.addEventListener("click", async () => {
    button.disabled = true;
    verdict.className = "proof-verdict";
    verdict.textContent = t("proof_checking");
    let words;
    try {
      const answer = await verifyGame({ seed: game.seed, commitment: game.commitment, recorded });
      words = verdictText(answer, recorded, game.rolls, t);
    } catch {
      words = { ok: false, text: t("proof_unavailable") };
    }
    verdict.classList.add(words.ok ? "good" : "bad");
    verdict.textContent = words.text;
    button.disabled = false;
  });
  return { button, verdict };
}
