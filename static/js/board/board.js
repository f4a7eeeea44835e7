// The board component, like chessground's: it draws a view and reports what
// the player does with it, and knows nothing else (no rules, no server).
//
//   const board = createBoard(svg, { onSpot, onRoll, onDouble, onCancel });
//   board.set(view);        // redraw from a view (view.js); set({busy}) only marks it busy
//   board.set({ inert });   // a panel stands over the board: it takes no input
//   board.focus();          // focus the spot the keyboard was last on
//
// Callbacks: onSpot(key) for a tap, Enter or Space on a point ("1".."24"),
// "bar" or "off"; onRoll() and onDouble() on the dice and the cube; onCancel()
// on Escape. The roving keyboard focus is the component's own.
/** @import { BoardView, SpotKey } from "../types.js" */
import { focusSpot, wireInput } from "./input.js";
import { drawBoard } from "./render.js";

/**
 * What set() takes besides a whole view: only the marks that need no redraw.
 * @typedef {{busy?: boolean, inert?: boolean}} BoardMarks
 */

/**
 * @param {SVGSVGElement} svg
 * @param {{
 *   onSpot: (key: SpotKey) => void,
 *   onRoll: () => void,
 *   onDouble: () => void,
 *   onCancel: () => void,
 * }} handlers
 */
export function createBoard(svg, { onSpot, onRoll, onDouble, onCancel }) {
  /** @type {BoardView | null} */
  let view = null;
  let busy = false;
  let focusKey = "1";
  let focusRow = 1;

  /** @param {BoardView} shown */
  function draw(shown) {
    const hadFocus = svg.contains(document.activeElement);
    drawBoard(svg, { ...shown, focusKey });
    showBusy();
    if (hadFocus) focusSpot(svg, focusKey);
  }

  // Tests and screen readers wait on aria-busy while options or an answer are on their way.
  function showBusy() {
    svg.setAttribute("aria-busy", busy ? "true" : "false");
  }

  wireInput(svg, {
    onActivate(key) {
      if (key === "dice") return onRoll();
      if (key === "cube") return onDouble();
      focusKey = key;
      return onSpot(key);
    },
    onCancel,
    onFocusMove(key, row) {
      focusKey = key;
      focusRow = row;
      if (view) draw(view);
      focusSpot(svg, key);
    },
    options: () => ({ homeLeft: Boolean(view && view.homeLeft), row: focusRow }),
  });

  return {
    /**
     * Redraw from a whole view, or with only {busy} or {inert} mark the board without a redraw.
     * @param {BoardView | BoardMarks} next
     */
    set(next) {
      if ("inert" in next) svg.toggleAttribute("inert", Boolean(next.inert));
      if ("busy" in next) busy = Boolean(next.busy);
      if ("board" in next) {
        view = next;
        draw(view);
      } else if ("busy" in next) {
        showBusy();
      }
    },
    focus() {
      focusSpot(svg, focusKey);
    },
  };
}
