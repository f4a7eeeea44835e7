// A past match's page: a button beside each revealed seed that re-derives every
// roll of that game in the browser (dice.js) and compares it with the record
// the page carries in #dice-records. Without it the command line still works.
import { proofButton } from "./dice.js";
import { h } from "./board/dom.js";
import { createTexts } from "./board/texts.js";

function readJson(id) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : null;
}

const records = readJson("dice-records") || [];
const strings = readJson("proof-strings");
if (strings) {
  const { t } = createTexts(strings, document.documentElement.lang || "es");
  const rolls = new Map(records.map((record) => [record.game, record.rolls]));
  for (const place of document.querySelectorAll(".dice-proof[data-game] .proof-check[data-seed]")) {
    const number = Number(place.closest(".dice-proof").dataset.game);
    const game = { seed: place.dataset.seed, commitment: place.dataset.commitment, rolls: Number(place.dataset.rolls) };
    const { button, verdict } = proofButton(h, game, rolls.get(number) || [], t);
    place.replaceChildren(h("p", { class: "proof-actions" }, [button]), verdict);
  }
}
