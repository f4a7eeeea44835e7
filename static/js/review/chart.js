// The review's chart: side 0's standing at each roll of the game (a winning
// or match-winning chance, or equity in points), the big rolls and the
// errors marked on the line. A click on it shows that moment in the review
// (main.js listens for "review:go"); the table under it says the same in
// words, with a button per roll for the keyboard. The server measured it
// all (#luck-chart); this only draws.

const SVG = "http://www.w3.org/2000/svg";
const PAD = { left: 40, right: 12, top: 12, bottom: 22 };

/**
 * @typedef {{turn: number, side: number, dice: string, y: number, luck: number, mark: string, mark_text: string}} ChartPoint
 * @typedef {{turn: number, side: number, mark: string, mark_text: string}} ChartError
 * @typedef {{scale: "percent" | "points", points: ChartPoint[], end: number | null, errors: ChartError[]}} Chart
 * @typedef {{x: number, y: number}} Spot
 */

/**
 * The range of the vertical axis: 0 to 100 for a chance; for points, whole
 * points around every value, at least -1 to 1.
 * @param {Chart} chart
 * @returns {[number, number]}
 */
export function range(chart) {
  if (chart.scale === "percent") return [0, 100];
  const values = chart.points.map((p) => p.y);
  if (chart.end !== null) values.push(chart.end);
  return [Math.min(-1, Math.floor(Math.min(...values))), Math.max(1, Math.ceil(Math.max(...values)))];
}

/**
 * Where everything goes in a box of ``width`` × ``height`` pixels: each roll
 * evenly spaced left to right (the end of the game last), higher standing
 * higher up; an error halfway between the roll it was made with and the next.
 * @param {Chart} chart
 * @param {number} width
 * @param {number} height
 * @returns {{line: Spot[], errors: Spot[], x: (index: number) => number, y: (value: number) => number, low: number, high: number}}
 */
export function layout(chart, width, height) {
  const [low, high] = range(chart);
  const values = chart.points.map((p) => p.y);
  if (chart.end !== null) values.push(chart.end);
  const slots = Math.max(1, values.length - 1);
  const inner = width - PAD.left - PAD.right;
  const tall = height - PAD.top - PAD.bottom;
  const x = (/** @type {number} */ index) => PAD.left + (inner * index) / slots;
  const y = (/** @type {number} */ value) => PAD.top + (tall * (high - value)) / (high - low);
  const line = values.map((value, index) => ({ x: x(index), y: y(value) }));
  const errors = chart.errors.map((error) => {
    const at = rollBefore(chart, error.turn);
    const next = Math.min(at + 1, line.length - 1);
    return { x: (line[at].x + line[next].x) / 2, y: (line[at].y + line[next].y) / 2 };
  });
  return { line, errors, x, y, low, high };
}

/**
 * The index of the last roll at or before ``turn`` (0 when none is).
 * @param {Chart} chart
 * @param {number} turn
 */
export function rollBefore(chart, turn) {
  let found = 0;
  chart.points.forEach((point, index) => {
    if (point.turn <= turn) found = index;
  });
  return found;
}

/**
 * The review's step to show for a moment of the game: the play made with a
 * roll (the first decision after it), or the decision itself.
 * @param {{turn: number, kind: string}[]} steps
 * @param {number} turn
 * @param {boolean} roll
 */
export function stepFor(steps, turn, roll) {
  if (!steps.length) return -1;
  const exact = roll ? -1 : steps.findIndex((s) => s.turn === turn);
  if (exact >= 0) return exact;
  const after = steps.findIndex((s) => (roll ? s.turn > turn && s.kind === "play" : s.turn >= turn));
  if (after >= 0) return after;
  const later = steps.findIndex((s) => s.turn >= turn);
  return later >= 0 ? later : steps.length - 1;
}

/**
 * @param {string} name
 * @param {Record<string, string>} attributes
 * @param {string} [text]
 */
function node(name, attributes, text) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (text !== undefined) element.textContent = text;
  return element;
}

/**
 * Draw ``chart`` into ``svg`` at its width on the page (its <title> and <desc> stay).
 * @param {SVGSVGElement} svg
 * @param {Chart} chart
 * @param {(value: number) => string} label
 * @param {(point: ChartPoint) => string} rollText
 * @param {(error: ChartError) => string} errorText
 * @param {number | null} cursor the roll index of the moment shown, or null
 */
export function drawChart(svg, chart, label, rollText, errorText, cursor) {
  const width = Math.max(280, Math.round(svg.getBoundingClientRect().width) || 600);
  const height = width < 500 ? 180 : 220;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("height", String(height));
  for (const old of [...svg.children]) {
    if (old.tagName !== "title" && old.tagName !== "desc") old.remove();
  }
  const spots = layout(chart, width, height);
  const grid = node("g", { class: "chart-grid" });
  const middle = (spots.low + spots.high) / 2;
  for (const value of [spots.low, middle, spots.high]) {
    const y = String(spots.y(value));
    grid.append(node("line", { x1: String(PAD.left), x2: String(width - PAD.right), y1: y, y2: y }));
    grid.append(node("text", { x: String(PAD.left - 4), y: String(spots.y(value) + 4), "text-anchor": "end" }, label(value)));
  }
  svg.append(grid);
  if (cursor !== null && spots.line[cursor]) {
    const x = String(spots.line[cursor].x);
    svg.append(node("line", { class: "chart-cursor", x1: x, x2: x, y1: String(PAD.top), y2: String(height - PAD.bottom) }));
  }
  const points = spots.line.map((s) => `${s.x.toFixed(1)},${s.y.toFixed(1)}`).join(" ");
  svg.append(node("polyline", { class: "chart-line", points, fill: "none" }));
  const marks = node("g", { class: "chart-marks" });
  chart.points.forEach((point, index) => {
    if (!point.mark) return;
    const { x, y } = spots.line[index];
    const big = point.mark.startsWith("very_");
    const good = !point.mark.endsWith("unlucky");
    const size = big ? 7 : 4.5;
    // Up for luck, down for bad luck: the shape says it without the colour.
    const tip = good ? y - size : y + size;
    const base = good ? y + size * 0.7 : y - size * 0.7;
    const shape = node("polygon", {
      class: `chart-roll ${point.mark}`,
      points: `${x},${tip} ${x - size},${base} ${x + size},${base}`,
      "data-index": String(index),
    });
    shape.append(node("title", {}, rollText(point)));
    marks.append(shape);
  });
  chart.errors.forEach((error, index) => {
    const { x, y } = spots.errors[index];
    const size = error.mark === "blunder" ? 6 : 4.5;
    const cross = node("path", {
      class: `chart-error ${error.mark}`,
      d: `M${x - size},${y - size}L${x + size},${y + size}M${x - size},${y + size}L${x + size},${y - size}`,
      "data-error": String(index),
    });
    cross.append(node("title", {}, errorText(error)));
    marks.append(cross);
  });
  svg.append(marks);
  return spots;
}
