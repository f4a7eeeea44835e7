// The state from the server, read for this viewer: whose side is at the
// bottom, who is called what, what the viewer may do, the play being built.
// Pure functions of the controller's model, shared by the board's view and
// the panels so each question has one answer.
/** @import { ActionName, GameInfo, MatchView, Model, RoomState, Side, Step, TableState, ViewerBoard } from "../types.js" */
import { applySteps, takenParam, viewerBoard } from "./geometry.js";

/**
 * The state has a match to show on the board (none while the room waits for its guest).
 * @param {RoomState} state
 * @returns {state is TableState}
 */
export function onTable(state) {
  return state.match !== null && state.match !== undefined;
}

/**
 * @param {Model} model
 * @returns {MatchView}
 */
export function match(model) {
  return model.state && model.state.match;
}

/**
 * The viewer's side, or null for a spectator.
 * @param {Model} model
 * @returns {Side | null}
 */
export function viewerSide(model) {
  const side = model.state ? model.state.viewer.side : null;
  return side === undefined ? null : side;
}

/** @param {Model} model */
export function isSpectator(model) {
  return viewerSide(model) === null;
}

/**
 * The side drawn at the bottom: the viewer's own, or side 0 unless a spectator flipped.
 * @param {Model} model
 * @returns {Side}
 */
export function bottomSide(model) {
  const side = viewerSide(model);
  if (side !== null) return side;
  return model.flipped ? 1 : 0;
}

/**
 * @param {Model} model
 * @param {Side} side
 */
export function nameOf(model, side) {
  const seat = model.state.seats.find((s) => s.side === side);
  return seat ? seat.nickname : "?";
}

/**
 * The name across the table from the bottom side: for a player, their opponent's.
 * @param {Model} model
 */
export function opponentName(model) {
  return nameOf(model, 1 - bottomSide(model));
}

/**
 * @param {Model} model
 * @param {ActionName} action
 */
export function allowed(model, action) {
  const m = match(model);
  return Boolean(m && m.allowed.includes(action));
}

/** @param {Model} model */
export function myMove(model) {
  const m = match(model);
  return Boolean(m && m.phase === "move" && m.turn === viewerSide(model) && allowed(model, "play"));
}

/**
 * The steps of the play built so far, in order.
 * @param {Model} model
 * @returns {Step[]}
 */
export function taken(model) {
  return model.chosen.flatMap((option) => option.path);
}

/**
 * Which options the model holds: the version and the steps they follow.
 * @param {Model} model
 */
export function optionsKey(model) {
  return `${model.state.version}|${takenParam(taken(model))}`;
}

/**
 * The play is whole: the server offers nothing more after the chosen steps.
 * @param {Model} model
 */
export function turnComplete(model) {
  return myMove(model) && model.chosen.length > 0 && model.options.length === 0
    && model.optionsFor === optionsKey(model);
}

/**
 * The checkers as drawn: seen from the bottom side, with the play built so far.
 * @param {Model} model
 * @returns {ViewerBoard}
 */
export function shownBoard(model) {
  const { me, them, side } = match(model).position;
  const board = viewerBoard(me, them, bottomSide(model) !== side);
  return myMove(model) ? applySteps(board, taken(model)) : board;
}

/**
 * The GNU Backgammon Position ID of the checkers as drawn, as the server wrote
 * it: with a play being built, the one its last option leads to (the steps
 * endpoint says); otherwise the state's, for the side drawn at the bottom.
 * @param {Model} model
 */
export function shownPositionId(model) {
  const { position } = match(model);
  if (myMove(model) && model.chosen.length) return model.chosen[model.chosen.length - 1].position_id;
  return bottomSide(model) === position.side ? position.id : position.other_side_id;
}

/**
 * The last game with a winner, or null.
 * @param {Model} model
 * @returns {GameInfo | null}
 */
export function lastGame(model) {
  const finished = match(model).games.filter((g) => g.winner !== null && g.winner !== undefined);
  return finished[finished.length - 1] || null;
}

/**
 * The room's state serial an ETag was read at ("v<version>-s<serial>-..."), or
 * null for a tag of another shape (games/web/etags.py writes them).
 * @param {string | null} etag
 * @returns {number | null}
 */
export function serialOf(etag) {
  const found = etag ? /^(?:W\/)?"v\d+-s(\d+)-/.exec(etag) : null;
  return found ? Number(found[1]) : null;
}

/**
 * Whether an answer (`next` with `etag`) is older than the state the board shows:
 * an earlier version, or the same version read at an earlier serial (a poll that
 * left before the viewer's own written answer and came back after it).
 * @param {RoomState | null} old
 * @param {string | null} oldEtag
 * @param {RoomState} next
 * @param {string | null} etag
 */
export function overtaken(old, oldEtag, next, etag) {
  if (!old) return false;
  if (next.version !== old.version) return next.version < old.version;
  const [before, after] = [serialOf(oldEtag), serialOf(etag)];
  return before !== null && after !== null && after < before;
}
