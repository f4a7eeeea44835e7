// Pointer and keyboard input for the board. Taps and Enter both "activate" a
// spot; arrow keys move a roving focus over the points, the bar and the tray.
/** @import { SpotKey } from "../types.js" */
import { moveFocus } from "./geometry.js";

const ARROWS = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"]);

/**
 * The spot or control an event happened on: the nearest element with a data-key.
 * @param {Event} event
 * @returns {SVGElement | null}
 */
function spotOf(event) {
  const target = event.target instanceof Element ? event.target.closest("[data-key]") : null;
  return target instanceof SVGElement ? target : null;
}

/**
 * Wire `svg` to the controller:
 *   onActivate(key)  a tap, Enter or Space on a spot or control ("13", "bar", "off", "dice", "cube")
 *   onFocusMove(key, row)  the roving focus moved with the keyboard
 *   onCancel()       Escape
 *   options()        {homeLeft, row} for the arrow keys
 * @param {SVGSVGElement} svg
 * @param {{
 *   onActivate: (key: SpotKey) => void,
 *   onFocusMove: (key: SpotKey, row: number) => void,
 *   onCancel: () => void,
 *   options: () => {homeLeft: boolean, row: number},
 * }} handlers
 */
export function wireInput(svg, { onActivate, onFocusMove, onCancel, options }) {
  svg.addEventListener("click", (event) => {
    const target = spotOf(event);
    if (target && svg.contains(target)) onActivate(target.dataset.key || "");
  });

  svg.addEventListener("keydown", (event) => {
    const target = spotOf(event);
    if (!target) return;
    const key = target.dataset.key || "";
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

/**
 * Focus the spot `key` inside `svg` (after a redraw replaced the elements).
 * @param {SVGSVGElement} svg
 * @param {SpotKey} key
 */
export function focusSpot(svg, key) {
  const node = svg.querySelector(`[data-key="${CSS.escape(key)}"]`);
  if (node instanceof SVGElement) node.focus({ preventScroll: true });
  return node;
}
