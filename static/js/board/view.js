// What the board component draws, computed from the controller's model: the
// checkers, the marks of the play being built and of the last play, dice,
// cube, and every spot's spoken label. Pure: a view in, nothing fetched.
/** @import { BoardView, CubeView, DiceView, Model, Side, SpotKey, Translate, ViewerBoard } from "../types.js" */
import { BAR, OFF, lastPlay, spotKey, spotNumber } from "./geometry.js";
import { styleOf } from "./pieces.js";
import { allowed, bottomSide, match, myMove, nameOf, viewerSide } from "./table.js";

/**
 * The view of `board` (from shownBoard) for createBoard's set().
 * @param {Model} model
 * @param {ViewerBoard} board
 * @param {Translate} t
 * @returns {BoardView}
 */
export function boardView(model, board, t) {
  const m = match(model);
  const bottom = bottomSide(model);
  const moving = myMove(model);
  const sources = new Set(moving ? model.options.map((o) => spotKey(o.from)) : []);
  /** @type {Map<SpotKey, string>} */
  const targets = new Map();
  if (moving && model.selected !== null) {
    const from = spotNumber(model.selected);
    for (const option of model.options) {
      const key = spotKey(option.to);
      if (option.from === from && !targets.has(key)) targets.set(key, option.label);
    }
  }
  const { lastFrom, lastTo } = lastMarks(model);
  return {
    board,
    styles: [styleOf(bottom), styleOf(1 - bottom)],
    homeLeft: model.homeLeft,
    selected: model.selected,
    sources,
    targets,
    lastFrom,
    lastTo,
    dice: diceView(model),
    canRoll: allowed(model, "roll") && m.phase === "roll",
    cube: cubeView(model),
    canDouble: allowed(model, "double"),
    labels: spotLabels(model, board, sources, targets, t),
    busy: model.busy || model.loading,
  };
}

/**
 * The other side's last play, marked from and to until the viewer moves.
 * @param {Model} model
 */
function lastMarks(model) {
  const m = match(model);
  /** @type {Set<SpotKey>} */
  const lastFrom = new Set();
  /** @type {Set<SpotKey>} */
  const lastTo = new Set();
  const last = lastPlay(m.history, m.game_number, bottomSide(model));
  if (last && last.side !== viewerSide(model)) {
    const srcs = new Set(last.steps.map(([src]) => spotKey(src)));
    const dsts = new Set(last.steps.map(([, dst]) => spotKey(dst)));
    for (const key of srcs) if (!dsts.has(key)) lastFrom.add(key);
    for (const key of dsts) if (!srcs.has(key)) lastTo.add(key);
  }
  return { lastFrom, lastTo };
}

/**
 * Doubles are four dice; the ones the built play used are drawn spent.
 * @param {Model} model
 * @returns {DiceView | null}
 */
function diceView(model) {
  const m = match(model);
  const dice = m.dice;
  if (!dice || m.phase !== "move") return null;
  // The higher die first, as players say the roll ("5-1", even for an opening 1 and 5).
  const values = dice[0] === dice[1] ? [dice[0], dice[0], dice[0], dice[0]] : [...dice].sort((a, b) => b - a);
  const used = values.map(() => false);
  if (myMove(model)) {
    for (const die of model.chosen.flatMap((o) => o.dice)) {
      const i = values.findIndex((v, j) => v === die && !used[j]);
      if (i >= 0) used[i] = true;
    }
  }
  return { values, used, mine: m.turn === bottomSide(model) };
}

/**
 * @param {Model} model
 * @returns {CubeView | null}
 */
function cubeView(model) {
  const m = match(model);
  const bottom = bottomSide(model);
  /** @type {(owner: Side | null) => "mine" | "theirs" | null} */
  const side = (owner) => (owner === null || owner === undefined ? null : (owner === bottom ? "mine" : "theirs"));
  if (m.phase === "doubled") {
    // The offered cube waits on the taker's side, already turned to its new value.
    return { value: m.cube.value * 2, owner: side(m.turn), offered: true };
  }
  if (m.format !== "single" && !m.crawford) return { value: m.cube.value, owner: side(m.cube.owner) };
  return null;
}

// --- what a screen reader says on each spot --------------------------------------------

/**
 * @param {Model} model
 * @param {ViewerBoard} board
 * @param {Set<SpotKey>} sources
 * @param {Map<SpotKey, string>} targets
 * @param {Translate} t
 */
function spotLabels(model, board, sources, targets, t) {
  /** @type {(count: number, side: "mine" | "theirs") => string} */
  const whose = (count, side) => whoseCheckers(model, count, side, t);
  /** @type {Map<SpotKey, string>} */
  const labels = new Map();
  /** @param {SpotKey} key */
  const extras = (key) => {
    const words = [];
    if (model.selected === key) words.push(t("selected"));
    else if (sources.has(key)) words.push(t("movable"));
    const target = targets.get(key);
    if (target !== undefined) words.push(t("target", { dice: target }));
    return words.length ? `, ${words.join(", ")}` : "";
  };
  for (let n = 1; n <= 24; n += 1) {
    const mine = board.mine[n];
    const what = mine ? whose(mine, "mine")
      : board.theirs[n] ? whose(board.theirs[n], "theirs") : t("empty");
    labels.set(String(n), t("point", { n, what }) + extras(String(n)));
  }
  const barWhat = [whose(board.mine[BAR], "mine"), whose(board.theirs[BAR], "theirs")];
  labels.set("bar", t("bar", { what: barWhat.join("; ") }) + extras("bar"));
  const offWhat = [whose(board.mine[OFF], "mine"), whose(board.theirs[OFF], "theirs")];
  labels.set("off", t("off", { what: offWhat.join("; ") }) + extras("off"));
  labels.set("dice", t("roll"));
  labels.set("cube", t("double", { value: match(model).cube.value * 2 }));
  return labels;
}

/**
 * @param {Model} model
 * @param {number} count
 * @param {"mine" | "theirs"} side
 * @param {Translate} t
 */
function whoseCheckers(model, count, side, t) {
  // A spectator reads names on both sides; a player reads "tuyas" for their own.
  const bottom = bottomSide(model);
  if (viewerSide(model) !== null && side === "mine") {
    if (!count) return t("none");
    return count === 1 ? t("mine_one") : t("mine_many", { count });
  }
  const name = nameOf(model, side === "mine" ? bottom : 1 - bottom);
  if (!count) return t("none");
  return count === 1 ? t("theirs_one", { name }) : t("theirs_many", { count, name });
}
