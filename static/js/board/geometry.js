// Pure board geometry and bookkeeping: no DOM, no rules. Everything here is
// tested with `node --test tests/js`.
//
// Points are numbered from the viewer's side: 1..24, 25 = the bar, 0 = off.
// The viewer's home board (1..6) sits at the bottom, on the right or on the
// left as the viewer prefers; their checkers move from 24 (top, same side as
// home) round to 1.
/** @import { HistoryEntry, Side, SpotKey, Step, ViewerBoard } from "../types.js" */

/** Where the board's left-right mirror stands: the home board on the left or not. @typedef {{homeLeft?: boolean}} Layout */
/** A box by its centre, as placeLabels places them. @typedef {{x: number, y: number, width: number, height: number}} Box */

export const BAR = 25;
export const OFF = 0;

// Sizes in SVG user units; the SVG scales to the width it is given.
export const SIZE = Object.freeze({
  frame: 12,
  label: 24, // strip above and below the frame for point numbers
  point: 44, // width of a point, one checker across
  bar: 52,
  tray: 52,
  half: 220, // height of a row of points: five checkers
  gap: 60, // the middle of the board, between the two rows
});

const S = SIZE;
export const CHECKER = S.point - 4;

// Left to right: frame | quadrant | bar | quadrant | frame | tray | frame,
// mirrored when the home board is on the left.
export const WIDTH = S.frame * 3 + S.point * 12 + S.bar + S.tray;
export const HEIGHT = S.label * 2 + S.frame * 2 + S.half * 2 + S.gap;
export const TOP = S.label + S.frame; // y of the top row's base
export const BOTTOM = HEIGHT - S.label - S.frame; // y of the bottom row's base
export const MIDDLE = HEIGHT / 2;

/**
 * @param {number} x
 * @param {number} width
 * @param {boolean} homeLeft
 */
function mirror(x, width, homeLeft) {
  return homeLeft ? WIDTH - x - width : x;
}

/** @param {boolean} outer */
function quadrantLeft(outer) {
  // Seen with the home board on the right: the outer board is left of the bar.
  return outer ? S.frame : S.frame + S.point * 6 + S.bar;
}

/**
 * The rectangle of point `n` (1..24): x, width, base y, tip y, and whether it is on top.
 * @param {number} n
 * @param {Layout} [layout]
 */
export function pointBox(n, { homeLeft = false } = {}) {
  if (!Number.isInteger(n) || n < 1 || n > 24) throw new RangeError(`no point ${n}`);
  const top = n > 12;
  let slot; // 0..5 from left to right, seen with home on the right
  if (n <= 6) slot = 6 - n; // 6 next to the bar ... 1 at the edge
  else if (n <= 12) slot = 12 - n; // 12 at the edge ... 7 next to the bar
  else if (n <= 18) slot = n - 13; // 13 at the edge ... 18 next to the bar
  else slot = n - 19; // 19 next to the bar ... 24 at the edge
  const outer = (n >= 7 && n <= 18);
  const x = mirror(quadrantLeft(outer) + slot * S.point, S.point, homeLeft);
  return {
    x,
    width: S.point,
    top,
    base: top ? TOP : BOTTOM,
    tip: top ? TOP + S.half * 0.86 : BOTTOM - S.half * 0.86,
  };
}

/** @param {Layout} [layout] */
export function barBox({ homeLeft = false } = {}) {
  return { x: mirror(S.frame + S.point * 6, S.bar, homeLeft), width: S.bar };
}

/** @param {Layout} [layout] */
export function trayBox({ homeLeft = false } = {}) {
  return { x: mirror(WIDTH - S.frame - S.tray, S.tray, homeLeft), width: S.tray };
}

/**
 * Centre of the i-th checker (0 = nearest the edge) on point n; stacks past five overlap.
 * @param {number} n
 * @param {number} i
 * @param {number} count
 * @param {Layout} [options]
 */
export function checkerCentre(n, i, count, options = {}) {
  const box = pointBox(n, options);
  const step = count > 5 ? (S.half - CHECKER) / (count - 1) : CHECKER;
  const offset = CHECKER / 2 + i * Math.min(step, CHECKER);
  return { x: box.x + box.width / 2, y: box.top ? box.base + offset : box.base - offset };
}

/**
 * Centre of the i-th checker on the bar. The viewer's own checkers wait in the
 * top half (they enter into the top home board), the opponent's in the bottom half.
 * @param {boolean} mine
 * @param {number} i
 * @param {Layout} [options]
 */
export function barCentre(mine, i, options = {}) {
  const box = barBox(options);
  const offset = S.gap / 2 + CHECKER / 2 + 2 + Math.min(i, 3) * (CHECKER * 0.8);
  return { x: box.x + box.width / 2, y: mine ? MIDDLE - offset : MIDDLE + offset };
}

export const SLICE = 12; // a borne-off checker lies on its side in the tray

/**
 * The i-th borne-off slice in the tray: the viewer's at the bottom, the opponent's at the top.
 * @param {boolean} mine
 * @param {number} i
 * @param {Layout} [options]
 */
export function traySlice(mine, i, options = {}) {
  const box = trayBox(options);
  const y = mine ? BOTTOM - (i + 1) * SLICE - 2 : TOP + i * SLICE + 2;
  return { x: box.x + 5, y, width: box.width - 10, height: SLICE - 2 };
}

// --- what stands where -------------------------------------------------------

/**
 * The board from the viewer's chair. `me`/`them` are the 26-number arrays of
 * the state (index = point number from that side); `flipped` shows the same
 * position from the other side (a spectator's choice).
 * Returns {mine, theirs}: arrays indexed by the VIEWER's point number
 * (theirs[n] = the opponent's checkers on the viewer's point n), [25] = bar, [0] = off.
 * @param {number[]} me
 * @param {number[]} them
 * @returns {ViewerBoard}
 */
export function viewerBoard(me, them, flipped = false) {
  const [a, b] = flipped ? [them, me] : [me, them];
  const mine = a.slice();
  const theirs = new Array(26).fill(0);
  for (let n = 1; n <= 24; n += 1) theirs[n] = b[25 - n];
  theirs[BAR] = b[BAR];
  theirs[OFF] = b[OFF];
  return { mine, theirs };
}

/**
 * Show the steps the viewer has taken this turn (each a single-die step of a
 * path the server offered). Moves a checker and sends a lone opposing checker
 * to the bar; legality was settled by the server before the step was offered.
 * @param {ViewerBoard} board
 * @param {Step[]} steps
 * @returns {ViewerBoard}
 */
export function applySteps(board, steps) {
  const mine = board.mine.slice();
  const theirs = board.theirs.slice();
  for (const [src, dst] of steps) {
    mine[src] -= 1;
    mine[dst] += 1;
    if (dst !== OFF && theirs[dst] === 1) {
      theirs[dst] = 0;
      theirs[BAR] += 1;
    }
  }
  return { mine, theirs };
}

/**
 * Pip counts [mine, theirs] of a viewer board; a checker on the bar counts 25.
 * @param {ViewerBoard} board
 * @returns {[number, number]}
 */
export function pips(board) {
  let mine = 0;
  let theirs = 0;
  for (let n = 1; n <= 25; n += 1) {
    mine += board.mine[n] * n;
    theirs += board.theirs[n] * (n === BAR ? 25 : 25 - n);
  }
  return [mine, theirs];
}

/**
 * The other side's point number for the same spot (bar and off stay).
 * @param {number} n
 */
export function otherSide(n) {
  return n === BAR || n === OFF ? n : 25 - n;
}

// --- keyboard focus ------------------------------------------------------------

/**
 * The focusable spots as they appear on screen: the top row, then the bottom
 * row, each left to right, with the bar between the quadrants and the tray at
 * its end. Keys are point numbers as strings, "bar" and "off".
 * @param {Layout} [layout]
 * @returns {SpotKey[][]}
 */
export function focusRows({ homeLeft = false } = {}) {
  const top = [13, 14, 15, 16, 17, 18, "bar", 19, 20, 21, 22, 23, 24, "off"];
  const bottom = [12, 11, 10, 9, 8, 7, "bar", 6, 5, 4, 3, 2, 1, "off"];
  const rows = [top, bottom].map((row) => row.map(String));
  return homeLeft ? rows.map((row) => row.slice().reverse()) : rows;
}

/**
 * Where the arrow key `key` takes the focus from `current`. The bar and the
 * tray belong to both rows, so the caller passes the row it came along
 * (0 top, 1 bottom). Returns {key, row}.
 * @param {SpotKey} current
 * @param {string} key  the KeyboardEvent's key
 * @param {Layout & {row?: number}} [options]
 * @returns {{key: SpotKey, row: number}}
 */
export function moveFocus(current, key, { homeLeft = false, row = 1 } = {}) {
  const rows = focusRows({ homeLeft });
  let r = rows[row]?.includes(current) ? row : rows.findIndex((keys) => keys.includes(current));
  if (r < 0) return { key: "1", row: 1 }; // start at the 1-point
  let c = rows[r].indexOf(current);
  switch (key) {
    case "ArrowLeft":
      c = Math.max(0, c - 1);
      break;
    case "ArrowRight":
      c = Math.min(rows[r].length - 1, c + 1);
      break;
    case "ArrowUp":
      r = 0;
      break;
    case "ArrowDown":
      r = 1;
      break;
    case "Home":
      c = 0;
      break;
    case "End":
      c = rows[r].length - 1;
      break;
    default:
      break;
  }
  return { key: rows[r][c], row: r };
}

/**
 * "24-18,18-13" for the steps endpoint's `taken` parameter.
 * @param {Step[]} steps
 */
export function takenParam(steps) {
  return steps.map(([src, dst]) => `${src}-${dst}`).join(",");
}

/**
 * The spot key of a point number: "bar", "off" or the number as a string.
 * @param {number} n
 * @returns {SpotKey}
 */
export function spotKey(n) {
  if (n === BAR) return "bar";
  if (n === OFF) return "off";
  return String(n);
}

/**
 * The point number of a spot key (25 the bar, 0 off).
 * @param {SpotKey} key
 */
export function spotNumber(key) {
  if (key === "bar") return BAR;
  if (key === "off") return OFF;
  return Number(key);
}

/**
 * The last play of game `gameNumber`, to mark it: {side, notation, steps} with the steps
 * in the numbering of the viewer whose bottom side is `bottomSide`; null when
 * the game has no play yet. (A play with no steps is a turn with no legal move.)
 * @param {HistoryEntry[]} history
 * @param {number} gameNumber
 * @param {Side} bottomSide
 * @returns {{side: Side, notation: string, steps: Step[]} | null}
 */
export function lastPlay(history, gameNumber, bottomSide) {
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const turn = history[i];
    if (turn.game !== gameNumber) return null;
    if (turn.kind !== "play") continue;
    const steps = turn.steps || [];
    const convert = turn.side === bottomSide ? (/** @type {number} */ n) => n : otherSide;
    return {
      side: turn.side,
      notation: turn.notation || "",
      steps: steps.map(/** @returns {Step} */ ([src, dst]) => [convert(src), convert(dst)]),
    };
  }
  return null;
}

// --- destination labels ----------------------------------------------------------

export const LABEL_HEIGHT = 30;

export const LABEL_FONT = 20; // the label's text size in SVG units (board.css says the same)

/**
 * Width of a destination label: wider than the point when it must be ("6+6+6").
 * Measured generously for a bold sans-serif (a digit about 0.7 em, a "+" about
 * 0.85 em, as DejaVu Sans Bold draws them), so the text never spills out of
 * its badge onto a neighbour's.
 * @param {string} text
 */
export function labelWidth(text) {
  const ems = [...String(text)].reduce((sum, ch) => sum + (ch === "+" ? 0.85 : 0.7), 0);
  return Math.max(34, Math.ceil(16 + ems * LABEL_FONT));
}

/**
 * @param {Box} a
 * @param {Box} b
 * @param {number} gap
 */
function overlaps(a, b, gap) {
  return Math.abs(a.x - b.x) * 2 < a.width + b.width + gap * 2
    && Math.abs(a.y - b.y) * 2 < a.height + b.height + gap * 2;
}

/**
 * Place destination labels so no two boxes meet. Each wanted label is
 * {key, x, y, width, height, dir}: its centre as the point would like it and the
 * direction (+1 down, -1 up) it may step away, row by row, into its own point
 * when a label already placed is in the way. With doubles the destinations are
 * often neighbours ("1", "1+1", "1+1+1", "1+1+1+1") and their wide labels would
 * otherwise pile up. Labels stay inside 0..`width` across. Returns a Map key ->
 * {x, y, width, height} (centres), placed in the order given.
 * @param {(Box & {key: SpotKey, dir: number})[]} wanted
 * @param {{gap?: number, width?: number}} [options]
 * @returns {Map<SpotKey, Box>}
 */
export function placeLabels(wanted, { gap = 3, width = WIDTH } = {}) {
  /** @type {Map<SpotKey, Box>} */
  const placed = new Map();
  for (const label of wanted) {
    const x = Math.min(Math.max(label.x, label.width / 2), width - label.width / 2);
    const box = { x, y: label.y, width: label.width, height: label.height };
    for (let row = 1; [...placed.values()].some((other) => overlaps(box, other, gap)); row += 1) {
      box.y = label.y + label.dir * row * (label.height + gap);
    }
    placed.set(label.key, box);
  }
  return placed;
}
