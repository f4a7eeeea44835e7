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
import { focusSpot, wireInput } from "./input.js";
import { drawBoard } from "./render.js";

export function createBoard(svg, { onSpot, onRoll, onDouble, onCancel }) {
  let view = null;
  let focusKey = "1";
  let focusRow = 1;

  function draw() {
    const hadFocus = svg.contains(document.activeElement);
    drawBoard(svg, { ...view, focusKey });
    showBusy();
    if (hadFocus) focusSpot(svg, focusKey);
  }

  // Tests and screen readers wait on aria-busy while options or an answer are on their way.
  function showBusy() {
    svg.setAttribute("aria-busy", view.busy ? "true" : "false");
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
      if (view) draw();
      focusSpot(svg, key);
    },
    options: () => ({ homeLeft: Boolean(view && view.homeLeft), row: focusRow }),
  });

  return {
    set(next) {
      const only = Object.keys(next);
      view = { ...view, ...next };
      if ("inert" in next) svg.toggleAttribute("inert", Boolean(view.inert));
      if (only.every((key) => key === "busy" || key === "inert")) {
        if ("busy" in next) showBusy();
        return;
      }
      draw();
    },
    focus() {
      focusSpot(svg, focusKey);
    },
  };
}
