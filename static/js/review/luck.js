// The review page's chart of the game (chart.js draws it): clicks on it and
// the buttons of its table show that moment in the review (main.js), and the
// moment shown is marked on it.
/** @import { ReviewData } from "../types.js" */
import { byId, readJson } from "../board/dom.js";
import { drawChart, rollBefore, stepFor } from "./chart.js";

// What the server wrote into the page (templates/games/review.html).
const chart = /** @type {import("./chart.js").Chart} */ (readJson("luck-chart"));
const review = /** @type {ReviewData} */ (readJson("review-data"));
const steps = review.steps;
const t = /** @type {Record<string, string>} */ (readJson("review-strings"));
const svg = byId("luck-svg", SVGSVGElement);
const lang = document.documentElement.lang || "es";
const whole = new Intl.NumberFormat(lang, { maximumFractionDigits: 1 });
const equity = new Intl.NumberFormat(lang, { minimumFractionDigits: 3, maximumFractionDigits: 3, signDisplay: "always" });
const signed = (/** @type {number} */ value) => equity.format(value).replace("-", "−");
const label = chart.scale === "percent" ? (/** @type {number} */ v) => `${whole.format(v)} %` : (/** @type {number} */ v) => whole.format(v).replace("-", "−");
const names = review.names;

/** @param {string} template @param {Record<string, string>} values */
const fill = (template, values) => template.replace(/\{(\w+)\}/g, (_, key) => values[key] ?? "");
const rollText = (/** @type {import("./chart.js").ChartPoint} */ p) =>
  fill(t.chart_roll, { name: names[p.side], dice: p.dice, luck: signed(p.luck), mark: p.mark_text });
const errorText = (/** @type {import("./chart.js").ChartError} */ e) =>
  fill(t.chart_error, { name: names[e.side], mark: e.mark_text });

/** @type {number | null} */
let cursor = steps.length ? rollBefore(chart, steps[0].turn) : null;
/** @type {ReturnType<typeof drawChart> | null} */
let spots = null;

function draw() {
  if (svg) spots = drawChart(svg, chart, label, rollText, errorText, cursor);
}

/**
 * Under the detail of a play (main.js writes it): the luck of the roll it was made with.
 * @param {import("../types.js").ReviewStep} step
 */
function rollLine(step) {
  const roll = chart.points[rollBefore(chart, step.turn)];
  const box = document.getElementById("review-detail");
  if (!roll || !box || roll.turn >= step.turn) return;
  const line = document.createElement("p");
  line.className = "roll-luck";
  const text = fill(t.roll_luck, { dice: roll.dice, luck: signed(roll.luck) });
  line.textContent = roll.mark_text ? `${text} (${roll.mark_text})` : text;
  box.append(line);
}

/** @param {number} index */
function go(index) {
  if (index >= 0) document.dispatchEvent(new CustomEvent("review:go", { detail: index }));
}

if (svg && chart.points.length) {
  svg.addEventListener("click", (event) => {
    const error = event.target instanceof Element ? event.target.closest("[data-error]") : null;
    if (error instanceof SVGElement && error.dataset.error !== undefined) {
      go(stepFor(steps, chart.errors[Number(error.dataset.error)].turn, false));
      return;
    }
    if (!spots) return;
    const { line } = spots;
    // Anywhere else: the roll nearest to the click, left to right.
    const box = svg.getBoundingClientRect();
    const x = ((event.clientX - box.left) * svg.viewBox.baseVal.width) / box.width;
    let nearest = 0;
    line.forEach((spot, index) => {
      if (index < chart.points.length && Math.abs(spot.x - x) < Math.abs(line[nearest].x - x)) nearest = index;
    });
    go(stepFor(steps, chart.points[nearest].turn, true));
  });
  for (const button of document.querySelectorAll("#luck-table [data-turn]")) {
    if (!(button instanceof HTMLButtonElement)) continue;
    button.hidden = false;
    button.addEventListener("click", () => {
      go(stepFor(steps, Number(button.dataset.turn), true));
      document.getElementById("review-app")?.scrollIntoView({ block: "start" });
    });
  }
  document.addEventListener("review:shown", (event) => {
    const step = event instanceof CustomEvent ? steps[Number(event.detail)] : undefined;
    if (step) cursor = rollBefore(chart, step.turn);
    draw();
    if (step && step.kind === "play") rollLine(step);
  });
  new ResizeObserver(() => draw()).observe(svg);
  draw();
}
