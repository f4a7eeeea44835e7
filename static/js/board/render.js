// Draw the board as SVG with createElementNS. The view comes from board.js
// (built by view.js); nothing here knows a rule, it only draws what it is told.
import {
  BAR, BOTTOM, CHECKER, HEIGHT, LABEL_HEIGHT, MIDDLE, OFF, SIZE, TOP, WIDTH,
  barBox, barCentre, checkerCentre, labelWidth, placeLabels, pointBox, traySlice, trayBox,
} from "./geometry.js";

const NS = "http://www.w3.org/2000/svg";
const STYLES = ["cap", "tyre"]; // side 0 plays brass bottle caps, side 1 small tyres

export function el(name, attrs = {}, children = []) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function text(x, y, content, attrs = {}) {
  const node = el("text", { x, y, ...attrs });
  node.textContent = content;
  return node;
}

// --- the pieces, drawn once in <defs> -----------------------------------------------

function crimpPath(r, teeth, depth) {
  // A bottle cap's skirt: `teeth` rounded crimps around the rim.
  const points = [];
  const n = teeth * 2;
  for (let i = 0; i < n; i += 1) {
    const angle = (Math.PI * 2 * i) / n;
    const radius = i % 2 === 0 ? r : r - depth;
    points.push(`${(radius * Math.cos(angle)).toFixed(2)},${(radius * Math.sin(angle)).toFixed(2)}`);
  }
  return `M${points.join("L")}Z`;
}

function defs() {
  const r = CHECKER / 2;
  return el("defs", {}, [
    el("linearGradient", { id: "wood-frame", x1: 0, y1: 0, x2: 1, y2: 0.15 }, [
      el("stop", { offset: 0, "stop-color": "#5a3218" }),
      el("stop", { offset: 0.45, "stop-color": "#6e3d1e" }),
      el("stop", { offset: 1, "stop-color": "#4a2812" }),
    ]),
    el("linearGradient", { id: "wood-field", x1: 0, y1: 0, x2: 0.2, y2: 1 }, [
      el("stop", { offset: 0, "stop-color": "#d7a86a" }),
      el("stop", { offset: 0.5, "stop-color": "#c9955a" }),
      el("stop", { offset: 1, "stop-color": "#d2a164" }),
    ]),
    // Wood grain: a few long faint strokes over the field.
    el("pattern", { id: "grain", width: 240, height: 36, patternUnits: "userSpaceOnUse" }, [
      el("path", {
        d: "M0 8 C60 4 120 12 240 7 M0 21 C80 25 150 17 240 22 M0 31 C70 29 170 34 240 30",
        fill: "none", stroke: "#8a5a2b", "stroke-opacity": 0.18, "stroke-width": 1.5,
      }),
    ]),
    el("radialGradient", { id: "brass", cx: 0.38, cy: 0.35, r: 0.75 }, [
      el("stop", { offset: 0, "stop-color": "#fff2b8" }),
      el("stop", { offset: 0.35, "stop-color": "#e3b94a" }),
      el("stop", { offset: 0.8, "stop-color": "#a87a1c" }),
      el("stop", { offset: 1, "stop-color": "#6f4d0e" }),
    ]),
    el("radialGradient", { id: "rubber", cx: 0.4, cy: 0.35, r: 0.8 }, [
      el("stop", { offset: 0, "stop-color": "#4a4a4a" }),
      el("stop", { offset: 1, "stop-color": "#141414" }),
    ]),
    el("radialGradient", { id: "rim", cx: 0.4, cy: 0.35, r: 0.8 }, [
      el("stop", { offset: 0, "stop-color": "#f1f3f5" }),
      el("stop", { offset: 1, "stop-color": "#8d969e" }),
    ]),
    el("symbol", { id: "piece-cap", viewBox: `${-r} ${-r} ${CHECKER} ${CHECKER}` }, [
      el("path", { d: crimpPath(r - 0.5, 21, 2.2), fill: "#8a6314" }),
      el("circle", { r: r - 2.5, fill: "url(#brass)" }),
      el("circle", { r: r - 8, fill: "none", stroke: "#fff3c4", "stroke-opacity": 0.55, "stroke-width": 1.2 }),
      el("circle", { r: r - 8.8, fill: "none", stroke: "#7a5510", "stroke-opacity": 0.45, "stroke-width": 1 }),
    ]),
    el("symbol", { id: "piece-tyre", viewBox: `${-r} ${-r} ${CHECKER} ${CHECKER}` }, [
      el("circle", { r: r - 0.5, fill: "url(#rubber)" }),
      // Tread blocks round the outside.
      el("circle", {
        r: r - 2.5, fill: "none", stroke: "#060606", "stroke-width": 4,
        "stroke-dasharray": "3 2.6",
      }),
      el("circle", { r: r - 8, fill: "#262626", stroke: "#0b0b0b", "stroke-width": 1 }),
      el("circle", { r: r - 11, fill: "url(#rim)" }),
      ...[0, 72, 144, 216, 288].map((angle) => el("circle", {
        cx: (4.2 * Math.cos((angle * Math.PI) / 180)).toFixed(2),
        cy: (4.2 * Math.sin((angle * Math.PI) / 180)).toFixed(2),
        r: 1.1, fill: "#5d656c",
      })),
      el("circle", { r: 1.8, fill: "#4b5259" }),
    ]),
  ]);
}

function piece(style, cx, cy, attrs = {}) {
  return el("use", {
    href: `#piece-${style}`, x: cx - CHECKER / 2, y: cy - CHECKER / 2,
    width: CHECKER, height: CHECKER, class: `piece ${style}`, ...attrs,
  });
}

// A borne-off piece lies on its side in the tray.
function slice(style, box) {
  const attrs = { x: box.x, y: box.y, width: box.width, height: box.height, rx: 3 };
  if (style === "cap") {
    return el("g", {}, [
      el("rect", { ...attrs, fill: "url(#brass)", stroke: "#6f4d0e", "stroke-width": 0.8 }),
      el("path", {
        d: Array.from({ length: 7 }, (_, i) => `M${box.x + 4 + i * ((box.width - 8) / 6)} ${box.y + 1}v${box.height - 2}`).join(""),
        stroke: "#8a6314", "stroke-width": 0.9,
      }),
    ]);
  }
  return el("g", {}, [
    el("rect", { ...attrs, fill: "#1d1d1d", stroke: "#000", "stroke-width": 0.8 }),
    el("path", {
      d: Array.from({ length: 9 }, (_, i) => `M${box.x + 3 + i * ((box.width - 6) / 8)} ${box.y + 1}l2 ${box.height - 2}`).join(""),
      stroke: "#4a4a4a", "stroke-width": 1.2,
    }),
  ]);
}

// --- dice and cube -----------------------------------------------------------------

const PIPS = {
  1: [[0, 0]],
  2: [[-1, -1], [1, 1]],
  3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
  5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
};

function die(value, cx, cy, size, { used = false, blank = false } = {}) {
  const g = el("g", { class: `die-face${used ? " used" : ""}` }, [
    el("rect", {
      x: cx - size / 2, y: cy - size / 2, width: size, height: size, rx: size * 0.18,
      fill: "#fbf6ea", stroke: "#7b6a4f", "stroke-width": 1.2,
    }),
  ]);
  if (blank) {
    g.append(text(cx, cy + size * 0.18, "?", { class: "die-blank", "font-size": size * 0.55 }));
    return g;
  }
  for (const [dx, dy] of PIPS[value] || []) {
    g.append(el("circle", { cx: cx + dx * size * 0.26, cy: cy + dy * size * 0.26, r: size * 0.09, fill: "#2b1d12" }));
  }
  return g;
}

function cube(value, cx, cy, size) {
  return el("g", { class: "cube-face" }, [
    el("rect", {
      x: cx - size / 2, y: cy - size / 2, width: size, height: size, rx: 5,
      fill: "#f3ead6", stroke: "#3b2a1a", "stroke-width": 1.5,
    }),
    text(cx, cy + size * 0.17, String(value === 1 ? 64 : value), { class: "cube-value", "font-size": size * 0.45 }),
  ]);
}

// --- the whole board ----------------------------------------------------------------

/**
 * Build the SVG content for `view`:
 * {board: {mine, theirs}, styles: [mineStyle, theirsStyle], homeLeft,
 *  selected, targets: Map(key -> label), sources: Set(keys), lastFrom/lastTo: Set(keys),
 *  dice: {values, used: [bool], mine: bool} | null, canRoll, cube: {value, owner: "mine"|"theirs"|null} | null,
 *  canDouble, labels: Map(key -> aria-label), focusKey, strings}
 */
export function drawBoard(svg, view) {
  const o = { homeLeft: view.homeLeft };
  const [mineStyle, theirsStyle] = view.styles;
  const layers = el("g");
  svg.setAttribute("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);

  // Table, frame, playing field.
  const frameY = SIZE.label;
  const frameH = HEIGHT - SIZE.label * 2;
  layers.append(
    el("rect", { x: 0, y: frameY, width: WIDTH, height: frameH, rx: 10, fill: "url(#wood-frame)" }),
  );
  const field = (x, width) => [
    el("rect", { x, y: TOP, width, height: BOTTOM - TOP, fill: "url(#wood-field)" }),
    el("rect", { x, y: TOP, width, height: BOTTOM - TOP, fill: "url(#grain)" }),
  ];
  const left = view.homeLeft ? trayBox(o).x + SIZE.tray + SIZE.frame : SIZE.frame;
  const bar = barBox(o);
  layers.append(...field(left, SIZE.point * 6), ...field(bar.x + bar.width, SIZE.point * 6));
  const tray = trayBox(o);
  layers.append(
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
    layers.append(el("path", {
      d: `M${box.x + 1} ${box.base}L${box.x + box.width / 2} ${box.tip}L${box.x + box.width - 1} ${box.base}Z`,
      class: cls.join(" "),
      "data-point": key,
    }));
    const labelY = box.top ? SIZE.label - 5 : HEIGHT - 5;
    layers.append(text(box.x + box.width / 2, labelY, key, { class: "point-number", "aria-hidden": "true" }));
  }

  // Checkers on the points.
  for (let n = 1; n <= 24; n += 1) {
    const [count, style] = view.board.mine[n]
      ? [view.board.mine[n], mineStyle]
      : [view.board.theirs[n], theirsStyle];
    for (let i = 0; i < count; i += 1) {
      const c = checkerCentre(n, i, count, o);
      const isTop = i === count - 1;
      const selected = isTop && view.selected === String(n);
      layers.append(piece(style, c.x, c.y, { class: `piece ${style}${selected ? " selected" : ""}` }));
      if (isTop && count > 5) {
        layers.append(text(c.x, c.y + 5, String(count), { class: `stack-count ${style}` }));
      }
    }
  }

  // The bar: the viewer's checkers above the middle, the opponent's below.
  for (const [count, style, mine] of [
    [view.board.mine[BAR], mineStyle, true],
    [view.board.theirs[BAR], theirsStyle, false],
  ]) {
    const shown = Math.min(count, 4);
    for (let i = 0; i < shown; i += 1) {
      const c = barCentre(mine, i, o);
      const selected = mine && i === shown - 1 && view.selected === "bar";
      layers.append(piece(style, c.x, c.y, { class: `piece ${style}${selected ? " selected" : ""}` }));
      if (i === shown - 1 && count > 1) {
        layers.append(text(c.x, c.y + 5, String(count), { class: `stack-count ${style}` }));
      }
    }
  }

  // Borne-off checkers in the tray.
  for (const [count, style, mine] of [
    [view.board.mine[OFF], mineStyle, true],
    [view.board.theirs[OFF], theirsStyle, false],
  ]) {
    for (let i = 0; i < count; i += 1) layers.append(slice(style, traySlice(mine, i, o)));
    if (count) {
      const last = traySlice(mine, count - 1, o);
      const y = mine ? last.y - 6 : last.y + last.height + 14;
      layers.append(text(tray.x + tray.width / 2, y, String(count), { class: "tray-count" }));
    }
  }

  // Last-move marks on the bar and the tray.
  if (view.lastFrom.has("bar")) {
    layers.append(el("rect", { x: bar.x + 3, y: TOP + 2, width: bar.width - 6, height: MIDDLE - TOP - 4, class: "mark-last-from" }));
  }
  if (view.lastTo.has("off")) {
    layers.append(el("rect", { x: tray.x + 2, y: TOP + 2, width: tray.width - 4, height: MIDDLE - TOP - 4, class: "mark-last-to" }));
  }

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
    values.forEach((value, i) => g.append(die(value, start + i * gap, MIDDLE, size, { used: view.dice.used[i] })));
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

  // Spots: the tap and focus targets over each point, the bar and the tray.
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

  svg.replaceChildren(defs(), layers, spots, controls, labelLayer);
}

function spot(key, view, { control = false } = {}) {
  const cls = ["spot"];
  if (view.sources.has(key)) cls.push("source");
  if (view.targets.has(key)) cls.push("target");
  if (view.selected === key) cls.push("selected");
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
 */
function targetLabels(view, o) {
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

/** A small picture of a side's piece, for the player panels. */
export function pieceIcon(side) {
  const style = STYLES[side];
  const svg = el("svg", { viewBox: `0 0 ${CHECKER} ${CHECKER}`, class: "piece-icon", "aria-hidden": "true" });
  // The pieces are defined once, in the board's <defs>.
  svg.append(piece(style, CHECKER / 2, CHECKER / 2));
  return svg;
}

export function styleOf(side) {
  return STYLES[side];
}

