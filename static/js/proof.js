// A past match's page: a button beside each revealed seed that re-derives every
// roll of that game in the browser (dice.js) and compares it with the record
// the page carries in #dice-records. Without it the command line still works.
/** @import { Strings } from "./board/texts.js" */
import { proofButton } from "./dice.js";
import { findAll, h, readJson } from "./board/dom.js";
import { createTexts } from "./board/texts.js";

// What the server wrote into the page (templates/games/past_match.html).
const records = /** @type {{game: number, rolls: number[][]}[] | null} */ (readJson("dice-records")) || [];
const strings = /** @type {Strings | null} */ (readJson("proof-strings"));
if (strings) {
  const { t } = createTexts(strings, document.documentElement.lang || "es");
  const rolls = new Map(records.map((record) => [record.game, record.rolls]));
  for (const place of findAll(document, ".dice-proof[data-game] .proof-check[data-seed]", HTMLElement)) {
    const proof = place.closest(".dice-proof");
    const number = Number(proof instanceof HTMLElement ? proof.dataset.game : undefined);
    const { seed = "", commitment = "", rolls: drawn } = place.dataset;
    const game = { seed, commitment, rolls: Number(drawn) };
    const { button, verdict } = proofButton(h, game, rolls.get(number) || [], t);
    place.replaceChildren(h("p", { class: "proof-actions" }, [button]), verdict);
  }
}
