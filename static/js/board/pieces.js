// The board's pictures in SVG: the pieces (drawn once in <defs>), the dice,
// the cube, and the small piece beside each player's name. Shared by the
// board (render.js) and the review page through it.
/** @import { PieceStyle, Side } from "../types.js" */
import { CHECKER } from "./geometry.js";

const NS = "http://www.w3.org/2000/svg";
/** @type {PieceStyle[]} */
const STYLES = ["cap", "tyre"]; // side 0 plays brass bottle caps, side 1 small tyres

/** An SVG attribute: null, undefined and false leave it out. @typedef {string | number | boolean | null | undefined} SvgAttr */

/**
 * document.createElementNS in SVG's namespace, with attributes and children.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} name
 * @param {Record<string, SvgAttr>} [attrs]
 * @param {(Node | null | undefined | false)[]} [children]
 * @returns {SVGElementTagNameMap[K]}
 */
export function el(name, attrs = {}, children = []) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined && value !== false) node.setAttribute(key, String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

/**
 * @param {number} x
 * @param {number} y
 * @param {string} content
 * @param {Record<string, SvgAttr>} [attrs]
 */
export function text(x, y, content, attrs = {}) {
  const node = el("text", { x, y, ...attrs });
  node.textContent = content;
  return node;
}

// --- the pieces, drawn once in <defs> -----------------------------------------------

/**
 * @param {number} r
 * @param {number} teeth
 * @param {number} depth
 */
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

export function defs() {
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

/**
 * @param {PieceStyle} style
 * @param {number} cx
 * @param {number} cy
 * @param {Record<string, SvgAttr>} [attrs]
 */
export function piece(style, cx, cy, attrs = {}) {
  return el("use", {
    href: `#piece-${style}`, x: cx - CHECKER / 2, y: cy - CHECKER / 2,
    width: CHECKER, height: CHECKER, class: `piece ${style}`, ...attrs,
  });
}

/**
 * A borne-off piece lies on its side in the tray.
 * @param {PieceStyle} style
 * @param {{x: number, y: number, width: number, height: number}} box
 */
export function slice(style, box) {
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

/** @type {Record<number, [number, number][]>} */
const PIPS = {
  1: [[0, 0]],
  2: [[-1, -1], [1, 1]],
  3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
  5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
};

/**
 * A die showing `value` (0 with `blank`: a die not rolled yet).
 * @param {number} value
 * @param {number} cx
 * @param {number} cy
 * @param {number} size
 * @param {{used?: boolean, blank?: boolean}} [options]
 */
export function die(value, cx, cy, size, { used = false, blank = false } = {}) {
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

/**
 * @param {number} value
 * @param {number} cx
 * @param {number} cy
 * @param {number} size
 */
export function cube(value, cx, cy, size) {
  return el("g", { class: "cube-face" }, [
    el("rect", {
      x: cx - size / 2, y: cy - size / 2, width: size, height: size, rx: 5,
      fill: "#f3ead6", stroke: "#3b2a1a", "stroke-width": 1.5,
    }),
    text(cx, cy + size * 0.17, String(value === 1 ? 64 : value), { class: "cube-value", "font-size": size * 0.45 }),
  ]);
}

/**
 * A small picture of a side's piece, for the player panels.
 * @param {Side} side
 */
export function pieceIcon(side) {
  const style = STYLES[side];
  const svg = el("svg", { viewBox: `0 0 ${CHECKER} ${CHECKER}`, class: "piece-icon", "aria-hidden": "true" });
  // The pieces are defined once, in the board's <defs>.
  svg.append(piece(style, CHECKER / 2, CHECKER / 2));
  return svg;
}

/**
 * @param {Side} side
 * @returns {PieceStyle}
 */
export function styleOf(side) {
  return STYLES[side];
}

