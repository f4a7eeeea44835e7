// The review page: step through a finished game's decisions on the same SVG
// board as the table (render.js, geometry.js), the played choice on the left
// and the evaluator's best on the right. Everything comes from the server in
// #review-data; nothing here rates anything.
/** @import { DrawnView, ReviewData, ReviewPosition, ReviewStep, Side, SpotKey, Step } from "../types.js" */
import { byId, findAll, readJson } from "../board/dom.js";
import { drawBoard, styleOf } from "../board/render.js";
import { spotKey, viewerBoard } from "../board/geometry.js";

// What the server wrote into the page (templates/games/review.html).
const data = /** @type {ReviewData} */ (readJson("review-data"));
const t = /** @type {Record<string, string>} */ (readJson("review-strings"));
const app = byId("review-app", HTMLElement);
const steps = data.steps;
// Equities as the page's language writes numbers: "−0,327" in Spanish, "−0.327" in English.
const numbers = new Intl.NumberFormat(document.documentElement.lang || "es", {
  minimumFractionDigits: 3, maximumFractionDigits: 3, signDisplay: "negative",
});
/** @param {number} value */
const number = (value) => numbers.format(value).replace("-", "−");

/**
 * @param {string} template
 * @param {Record<string, string | number>} values
 */
function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, key) => String(values[key]));
}

/**
 * @param {ReviewPosition} position
 * @param {Step[] | undefined} marks
 * @param {number[] | null} dice
 * @param {Side} side
 * @returns {DrawnView}
 */
function view(position, marks, dice, side) {
  /** @type {Set<SpotKey>} */
  const from = new Set();
  /** @type {Set<SpotKey>} */
  const to = new Set();
  for (const [src, dst] of marks || []) {
    from.add(spotKey(src));
    to.add(spotKey(dst));
  }
  return {
    board: viewerBoard(position.me, position.them),
    styles: [styleOf(0), styleOf(1)],
    homeLeft: false,
    selected: null,
    targets: new Map(),
    sources: new Set(),
    lastFrom: from,
    lastTo: to,
    dice: dice ? { values: dice, used: dice.map(() => false), mine: side === 0 } : null,
    canRoll: false,
    cube: null,
    canDouble: false,
    labels: new Map(),
    focusKey: null,
    picture: true, // a position to look at, named by its caption: no controls inside
  };
}

/**
 * @param {ReviewStep} step
 * @param {"played" | "best"} which
 */
function label(step, which) {
  // The server writes a cube action as a word and a play in its notation.
  return which === "best" ? step.best_text : step.played_text;
}

/** @param {ReviewStep} step */
function markText(step) {
  if (step.forced) return t.forced;
  return step.mark ? t[step.mark] : "";
}

/** @param {ReviewStep} step */
function detail(step) {
  const box = byId("review-detail", HTMLElement);
  if (!box) return;
  const name = data.names[step.side];
  const dice = step.dice_text ? ` ${step.dice_text}` : "";
  /** @type {HTMLElement[]} */
  const lines = [];
  const head = document.createElement("p");
  const strong = document.createElement("strong");
  strong.textContent = `${name}${dice}: ${label(step, "played")}`;
  head.append(strong);
  const mark = markText(step);
  if (mark) {
    const badge = document.createElement("span");
    badge.className = `badge mark-${step.forced ? "forced" : step.mark}`;
    badge.textContent = mark;
    head.append(" ", badge);
  }
  lines.push(head);
  const verdict = document.createElement("p");
  verdict.className = "verdict";
  verdict.textContent = step.loss > 0
    ? `${t.best}: ${label(step, "best")}. ${fill(t.loss, { loss: number(step.loss) })}`
    : t.same;
  lines.push(verdict);
  if (step.alternatives && step.alternatives.length) {
    const table = document.createElement("table");
    table.className = "alternatives";
    const headRow = table.createTHead().insertRow();
    for (const title of ["#", t.play, t.equity]) {
      const th = document.createElement("th");
      th.textContent = title;
      headRow.append(th);
    }
    const body = table.createTBody();
    step.alternatives.forEach((alt, i) => {
      const row = body.insertRow();
      if (alt.notation === step.played) row.className = "played";
      row.insertCell().textContent = String(i + 1);
      row.insertCell().textContent = alt.notation;
      row.insertCell().textContent = number(alt.equity);
    });
    lines.push(table);
  } else if (step.cube) {
    const cube = document.createElement("p");
    cube.className = "cube-equities";
    const { nd, dt, dp } = step.cube;
    cube.textContent = `${t.no_double} ${number(nd)} · ${t.double}/${t.take} ${number(dt)} · ${t.double}/${t.drop} ${number(dp)}`;
    lines.push(cube);
  }
  box.replaceChildren(...lines);
}

let current = 0;

/**
 * @param {string} id
 * @param {string} text
 */
function write(id, text) {
  const node = document.getElementById(id);
  if (node) node.textContent = text;
}

/** @param {number} index */
function show(index) {
  current = Math.max(0, Math.min(steps.length - 1, index));
  const step = steps[current];
  const played = step.after_played || step.before;
  const best = step.after_best || step.before;
  const playedBoard = byId("board-played", SVGSVGElement);
  const bestBoard = byId("board-best", SVGSVGElement);
  if (playedBoard) drawBoard(playedBoard, view(played, step.played_steps, step.dice, step.side));
  if (bestBoard) drawBoard(bestBoard, view(best, step.best_steps, step.dice, step.side));
  write("played-caption", `${t.played}: ${label(step, "played")}`);
  write("best-caption", `${t.best}: ${label(step, "best")}`);
  write("review-step", fill(t.step, { n: current + 1, total: steps.length }));
  detail(step);
  for (const item of findAll(document, "#decision-list li", HTMLElement)) {
    item.classList.toggle("current", Number(item.dataset.index) === current);
  }
  document.dispatchEvent(new CustomEvent("review:shown", { detail: current }));
}

/** @type {Record<string, () => number>} */
const moves = { first: () => 0, prev: () => current - 1, next: () => current + 1, last: () => steps.length - 1 };

if (app && steps.length) {
  app.hidden = false;
  for (const button of findAll(app, "[data-go]", HTMLElement)) {
    const go = moves[button.dataset.go || ""];
    if (go) button.addEventListener("click", () => show(go()));
  }
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof Element && event.target.closest("input, textarea, select")) return;
    if (event.key === "ArrowLeft") show(current - 1);
    else if (event.key === "ArrowRight") show(current + 1);
    else if (event.key === "Home") show(0);
    else if (event.key === "End") show(steps.length - 1);
    else return;
    event.preventDefault();
  });
  for (const item of findAll(document, "#decision-list li", HTMLElement)) {
    item.addEventListener("click", () => show(Number(item.dataset.index)));
  }
  // The chart of the game (luck.js) asks for a moment of it.
  document.addEventListener("review:go", (event) => {
    if (event instanceof CustomEvent) show(Number(event.detail));
  });
  show(0);
}
