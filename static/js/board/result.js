// The result of each game, said out loud: in a match or a session the next
// game starts by itself, so the result stands over the board, as a dialog,
// until the player closes it. A partida simple's one game is the whole match:
// the status line says it. Which results were seen is kept in this browser.
/** @import { GameInfo, GameResultWords, Model, Texts } from "../types.js" */
import { h, store, stored } from "./dom.js";
import { lastGame, match } from "./table.js";

const SEEN_KEY = "mesa.board.resultsSeen";

/**
 * `node` the panel; onShown(open) tells the board under it to wait (inert) or
 * not; onClosed() puts the focus back on the board. render(model) shows the
 * pending result, if any.
 * @param {HTMLElement} node
 * @param {Texts} texts
 * @param {{onShown: (open: boolean) => void, onClosed: () => void}} handlers
 */
export function createResult(node, { t }, { onShown, onClosed }) {
  // The games whose result this browser has shown and the player closed: "slug:match:game".
  /** @type {Set<string>} */
  const seen = new Set((() => {
    try {
      return JSON.parse(stored(SEEN_KEY) || "[]");
    } catch {
      return [];
    }
  })());
  /** @type {string | null} */
  let shown = null;

  /**
   * @param {Model} model
   * @param {GameInfo} game
   */
  const keyOf = (model, game) => `${model.state.room.slug}:${match(model).number}:${game.number}`;

  /**
   * The game that just ended, while its result waits to be seen.
   * @param {Model} model
   * @returns {(GameInfo & {result: GameResultWords}) | null}
   */
  function pending(model) {
    const m = match(model);
    const game = lastGame(model);
    if (m.format === "single" || !game || !game.result) return null;
    if (game.number < m.game_number - 1) return null; // long ago: the history has it
    return seen.has(keyOf(model, game)) ? null : { ...game, result: game.result };
  }

  /**
   * @param {Model} model
   * @param {GameInfo} game
   */
  function close(model, game) {
    seen.add(keyOf(model, game));
    store(SEEN_KEY, JSON.stringify([...seen].slice(-50)));
    render(model);
    onClosed(); // back to the board the result stood over
  }

  /** @param {Model} model */
  function render(model) {
    const game = pending(model);
    const key = game ? keyOf(model, game) : null;
    if (key === shown) return;
    shown = key;
    node.hidden = !game;
    onShown(Boolean(game)); // the board under it waits
    if (!game) {
      node.replaceChildren();
      return;
    }
    // Never disabled, unlike the action buttons: closing it sends nothing.
    const button = h("button", { type: "button", id: "board-result-seen", text: t("result_seen"), onclick: () => close(model, game) });
    node.replaceChildren(
      h("h2", { id: "board-result-title", text: t("game_over_n", { number: game.number }) }),
      h("p", { class: "result-line", text: `${game.result.text}.` }),
      h("p", { class: "result-score", text: `${game.result.score_text}.` }),
      button,
    );
    button.focus();
  }

  return { render };
}
