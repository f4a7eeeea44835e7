// Draw the board as SVG with createElementNS. The view comes from board.js
// (built by view.js) or the review page; nothing here knows a rule, it only draws what it is told.
import {
  BAR, BOTTOM, CHECKER, HEIGHT, LABEL_HEIGHT, MIDDLE, OFF, SIZE, TOP, WIDTH,
  barBox, barCentre, checkerCentre, labelWidth, placeLabels, pointBox, traySlice, trayBox,
} from "./geometry.js";
import { cube, defs, die, el, piece, slice, text } from "./pieces.js";
/** @import { DrawnView, PieceStyle, SpotKey } from "../types.js" */
/** @import { Box, Layout } from "./geometry.js" */

export { pieceIcon, styleOf } from "./pieces.js"; // the review page reads them here

// --- the whole board ----------------------------------------------------------------

/**
 * Build the SVG content for `view` (types.js, DrawnView: the checkers, the marks,
 * dice, cube, each spot's label and the spot in the Tab order; a `picture`,
 * the review's boards, has no controls).
 * @param {SVGSVGElement} svg
 * @param {DrawnView} view
 */
export function drawBoard(svg, view) {
  const o = { homeLeft: view.homeLeft };
  const bar = barBox(o);
  svg.setAttribute("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);
  const layers = el("g");
  layers.append(...drawTable(view, o), ...drawCheckers(view, o));
  const { spots, labelLayer } = drawSpots(view, o);
  svg.replaceChildren(defs(), layers, spots, drawControls(view, bar), labelLayer);
}

/**
 * The frame, the playing field, the tray, the bar and the points with their numbers.
 * @param {DrawnView} view
 * @param {Layout} o
 */
function drawTable(view, o) {
  /** @type {SVGElement[]} */
  const layers = [];
  const bar = barBox(o);
  const tray = trayBox(o);
  const frameY = SIZE.label;
  const frameH = HEIGHT - SIZE.label * 2;
  layers.push(
    el("rect", { x: 0, y: frameY, width: WIDTH, height: frameH, rx: 10, fill: "url(#wood-frame)" }),
  );
  /** @type {(x: number, width: number) => SVGElement[]} */
  const field = (x, width) => [
    el("rect", { x, y: TOP, width, height: BOTTOM - TOP, fill: "url(#wood-field)" }),
    el("rect", { x, y: TOP, width, height: BOTTOM - TOP, fill: "url(#grain)" }),
  ];
  const left = view.homeLeft ? tray.x + SIZE.tray + SIZE.frame : SIZE.frame;
  layers.push(...field(left, SIZE.point * 6), ...field(bar.x + bar.width, SIZE.point * 6));
  layers.push(
    el("rect", { x: tray.x, y: TOP, width: tray.width, height: BOTTOM - TOP, rx: 4, class: "tray-well" }),
    el("rect", { x: bar.x + 4, y: TOP, width: bar.width - 8, height: BOTTOM - TOP, class: "bar-strip" }),
  );

  // Points: triangles with their numbers outside the frame.
  for (let n = 1; n <= 24; n += 1) {
    const box = pointBox(n, o);
    const dark = n % 2 === 0;
    const key = String(n);
    const cls = ["tri", dark ? "dark" : "light"];
    if (view.lastFrom.has(key)) cls.push("last-from");
    if (view.lastTo.has(key)) cls.push("last-to");
    layers.push(el("path", {
      d: `M${box.x + 1} ${box.base}L${box.x + box.width / 2} ${box.tip}L${box.x + box.width - 1} ${box.base}Z`,
      class: cls.join(" "),
      "data-point": key,
    }));
    const labelY = box.top ? SIZE.label - 5 : HEIGHT - 5;
    layers.push(text(box.x + box.width / 2, labelY, key, { class: "point-number", "aria-hidden": "true" }));
  }
  return layers;
}

/**
 * The checkers on the points, on the bar and borne off, and the marks of the last play.
 * @param {DrawnView} view
 * @param {Layout} o
 */
function drawCheckers(view, o) {
  const [mineStyle, theirsStyle] = view.styles;
  /** @type {SVGElement[]} */
  const layers = [];
  const bar = barBox(o);
  const tray = trayBox(o);
  // Checkers on the points.
  for (let n = 1; n <= 24; n += 1) {
    /** @type {[number, PieceStyle]} */
    const [count, style] = view.board.mine[n]
      ? [view.board.mine[n], mineStyle]
      : [view.board.theirs[n], theirsStyle];
    for (let i = 0; i < count; i += 1) {
      const c = checkerCentre(n, i, count, o);
      const isTop = i === count - 1;
      const selected = isTop && view.selected === String(n);
      layers.push(piece(style, c.x, c.y, { class: `piece ${style}${selected ? " selected" : ""}` }));
      if (isTop && !selected && view.sources.has(String(n))) layers.push(movableRing(c));
      if (isTop && count > 5) {
        layers.push(text(c.x, c.y + 5, String(count), { class: `stack-count ${style}` }));
      }
    }
  }

  /** @type {[number, PieceStyle, boolean][]} */
  const barStacks = [
    [view.board.mine[BAR], mineStyle, true],
    [view.board.theirs[BAR], theirsStyle, false],
  ];
  // The bar: the viewer's checkers above the middle, the opponent's below.
  for (const [count, style, mine] of barStacks) {
    const shown = Math.min(count, 4);
    for (let i = 0; i < shown; i += 1) {
      const c = barCentre(mine, i, o);
      const selected = mine && i === shown - 1 && view.selected === "bar";
      layers.push(piece(style, c.x, c.y, { class: `piece ${style}${selected ? " selected" : ""}` }));
      if (mine && i === shown - 1 && !selected && view.sources.has("bar")) layers.push(movableRing(c));
      if (i === shown - 1 && count > 1) {
        layers.push(text(c.x, c.y + 5, String(count), { class: `stack-count ${style}` }));
      }
    }
  }

  /** @type {[number, PieceStyle, boolean][]} */
  const trayStacks = [
    [view.board.mine[OFF], mineStyle, true],
    [view.board.theirs[OFF], theirsStyle, false],
  ];
  // Borne-off checkers in the tray.
  for (const [count, style, mine] of trayStacks) {
    for (let i = 0; i < count; i += 1) layers.push(slice(style, traySlice(mine, i, o)));
    if (count) {
      const last = traySlice(mine, count - 1, o);
      const y = mine ? last.y - 6 : last.y + last.height + 14;
      layers.push(text(tray.x + tray.width / 2, y, String(count), { class: "tray-count" }));
    }
  }

  // Last-move marks on the bar and the tray.
  if (view.lastFrom.has("bar")) {
    layers.push(el("rect", { x: bar.x + 3, y: TOP + 2, width: bar.width - 6, height: MIDDLE - TOP - 4, class: "mark-last-from" }));
  }
  if (view.lastTo.has("off")) {
    layers.push(el("rect", { x: tray.x + 2, y: TOP + 2, width: tray.width - 4, height: MIDDLE - TOP - 4, class: "mark-last-to" }));
  }
  return layers;
}

// A checker that may move wears a bright ring before the first tap, so a player
// sees at a glance which ones the dice let go.
/** @param {{x: number, y: number}} c */
function movableRing(c) {
  return el("circle", { cx: c.x, cy: c.y, r: CHECKER / 2 + 1, class: "movable-ring" });
}

// A finger needs about 44 CSS pixels: on a 390 px phone that is some 80 board units.
const FINGER_UNITS = 84;

/**
 * The dice (or the button that rolls them) and the cube, on a layer over the checkers.
 * @param {DrawnView} view
 * @param {{x: number, width: number}} bar
 */
function drawControls(view, bar) {
  // Dice: the viewer's on their home half, the opponent's on the other half.
  const homeHalfX = bar.x + (view.homeLeft ? -SIZE.point * 3 : bar.width + SIZE.point * 3);
  const outerHalfX = bar.x + (view.homeLeft ? bar.width + SIZE.point * 3 : -SIZE.point * 3);
  const controls = el("g", { class: "controls" });
  if (view.dice) {
    const cx = view.dice.mine ? homeHalfX : outerHalfX;
    const values = view.dice.values;
    const size = values.length > 2 ? 34 : 42;
    const gap = size + 8;
    const start = cx - ((values.length - 1) * gap) / 2;
    const g = el("g", { class: "dice-set", "aria-hidden": "true" });
    const used = view.dice.used;
    values.forEach((value, i) => g.append(die(value, start + i * gap, MIDDLE, size, { used: used[i] })));
    controls.append(g);
  } else if (view.canRoll) {
    const g = spot("dice", view, { control: true });
    g.classList.add("roll-button");
    g.append(
      el("rect", { x: homeHalfX - 62, y: MIDDLE - 28, width: 124, height: 56, rx: 10, class: "hit roll-hit" }),
      die(0, homeHalfX - 24, MIDDLE, 40, { blank: true }),
      die(0, homeHalfX + 24, MIDDLE, 40, { blank: true }),
    );
    controls.append(g);
  }

  // The cube: in the middle of the bar, or at the owner's edge.
  if (view.cube) {
    const size = 38;
    const cx = bar.x + bar.width / 2;
    let cy = MIDDLE;
    if (view.cube.owner === "mine") cy = BOTTOM - size / 2 - 4;
    if (view.cube.owner === "theirs") cy = TOP + size / 2 + 4;
    const g = view.canDouble ? spot("cube", view, { control: true }) : el("g", { "aria-hidden": "true" });
    if (view.canDouble) {
      g.classList.add("cube-button");
      // A see-through tap area as tall as a finger, inside the bar.
      const y = Math.min(Math.max(cy - FINGER_UNITS / 2, TOP), BOTTOM - FINGER_UNITS);
      g.append(el("rect", { x: bar.x, y, width: bar.width, height: FINGER_UNITS, class: "tap-area" }));
      g.append(el("rect", { x: cx - size / 2 - 5, y: cy - size / 2 - 5, width: size + 10, height: size + 10, rx: 8, class: "hit cube-hit" }));
    }
    g.append(cube(view.cube.value, cx, cy, size));
    if (view.cube.offered) {
      g.append(el("rect", {
        x: cx - size / 2 - 4, y: cy - size / 2 - 4, width: size + 8, height: size + 8, rx: 8, class: "cube-offered",
      }));
    }
    controls.append(g);
  }
  return controls;
}

/**
 * The tap and focus targets over each point, the bar and the tray, and the destination labels.
 * @param {DrawnView} view
 * @param {Layout} o
 */
function drawSpots(view, o) {
  const bar = barBox(o);
  const tray = trayBox(o);
  const labels = targetLabels(view, o);
  // The labels lie above every spot, so no neighbour's highlight covers a wide one;
  // each carries its spot's key, so a tap on it still picks that destination.
  const labelLayer = el("g", { class: "target-labels", "aria-hidden": "true" });
  const spots = el("g", { class: "spots" });
  for (let n = 1; n <= 24; n += 1) {
    const box = pointBox(n, o);
    const g = spot(String(n), view);
    g.append(el("rect", {
      x: box.x, y: box.top ? TOP : MIDDLE + 4, width: box.width, height: BOTTOM - MIDDLE - 4, class: "hit",
    }));
    addTarget(labelLayer, view, String(n), labels.get(String(n)));
    spots.append(g);
  }
  const barSpot = spot("bar", view);
  barSpot.append(el("rect", { x: bar.x, y: TOP, width: bar.width, height: MIDDLE - TOP - 26, class: "hit" }));
  spots.append(barSpot);
  const offSpot = spot("off", view);
  offSpot.append(el("rect", { x: tray.x, y: MIDDLE + 4, width: tray.width, height: BOTTOM - MIDDLE - 4, class: "hit" }));
  addTarget(labelLayer, view, "off", labels.get("off"));
  spots.append(offSpot);
  return { spots, labelLayer };
}

/**
 * @param {SpotKey} key
 * @param {DrawnView} view
 * @param {{control?: boolean}} [options]
 */
function spot(key, view, { control = false } = {}) {
  const cls = ["spot"];
  if (view.sources.has(key)) cls.push("source");
  if (view.targets.has(key)) cls.push("target");
  if (view.selected === key) cls.push("selected");
  // A picture (the review's boards) has no controls: nothing in it to focus or press.
  if (view.picture) return el("g", { class: cls.join(" "), "data-key": key });
  return el("g", {
    class: cls.join(" "),
    "data-key": key,
    role: "button",
    // The dice and the cube are always in the Tab order; the points share one
    // stop and the arrow keys move between them.
    tabindex: control || key === view.focusKey ? 0 : -1,
    "aria-label": view.labels.get(key) || key,
    "aria-pressed": key === view.selected ? "true" : null,
  });
}

/**
 * Where each destination's label goes: next to the point's tip (or over the tray),
 * stepped into the point when a neighbour's label is in the way (geometry.placeLabels).
 * @param {DrawnView} view
 * @param {Layout} o
 */
function targetLabels(view, o) {
  /** @type {Parameters<typeof placeLabels>[0]} */
  const wanted = [];
  for (const [key, label] of view.targets) {
    const width = labelWidth(label);
    if (key === "off") {
      const tray = trayBox(o);
      wanted.push({ key, x: tray.x + tray.width / 2, y: MIDDLE + 40, width, height: LABEL_HEIGHT, dir: 1 });
    } else if (key !== "bar") {
      const box = pointBox(Number(key), o);
      const y = box.top ? box.tip + 18 : box.tip - 18;
      wanted.push({ key, x: box.x + box.width / 2, y, width, height: LABEL_HEIGHT, dir: box.top ? -1 : 1 });
    }
  }
  return placeLabels(wanted);
}

/**
 * @param {SVGGElement} layer
 * @param {DrawnView} view
 * @param {SpotKey} key
 * @param {Box | undefined} box
 */
function addTarget(layer, view, key, box) {
  const label = box && view.targets.get(key);
  if (!label) return;
  layer.append(el("g", { class: "target-mark", "data-key": key }, [
    el("rect", {
      x: box.x - box.width / 2, y: box.y - box.height / 2, width: box.width, height: box.height,
      rx: box.height / 2, class: "target-badge",
    }),
    text(box.x, box.y + 7, label, { class: "target-label" }),
  ]));
}
