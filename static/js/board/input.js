// Pointer and keyboard input for the board. Taps and Enter both "activate" a
// spot; arrow keys move a roving focus over the points, the bar and the tray.
import { moveFocus } from "./geometry.js";

const ARROWS = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"]);

/**
 * Wire `svg` to the controller:
 *   onActivate(key)  a tap, Enter or Space on a spot or control ("13", "bar", "off", "dice", "cube")
 *   onFocusMove(key, row)  the roving focus moved with the keyboard
 *   onCancel()       Escape
 *   options()        {homeLeft, row} for the arrow keys
 */
export function wireInput(svg, { onActivate, onFocusMove, onCancel, options }) {
  svg.addEventListener("click", (event) => {
    const target = event.target.closest("[data-key]");
    if (target && svg.contains(target)) onActivate(target.dataset.key);
  });

  svg.addEventListener("keydown", (event) => {
    const target = event.target.closest("[data-key]");
    if (!target) return;
    const key = target.dataset.key;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      onActivate(key);
    } else if (event.key === "Escape") {
      onCancel();
    } else if (ARROWS.has(event.key)) {
      event.preventDefault();
      const next = moveFocus(key, event.key, options());
      onFocusMove(next.key, next.row);
    }
  });
}

/** Focus the spot `key` inside `svg` (after a redraw replaced the elements). */
export function focusSpot(svg, key) {
  const node = svg.querySelector(`[data-key="${CSS.escape(key)}"]`);
  if (node) node.focus({ preventScroll: true });
  return node;
}
