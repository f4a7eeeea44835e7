// The status line under the board, in words: what the other side just played,
// the turns that passed with no move, and what happens now. Pure: the model
// and the texts in, sentences out.
/** @import { MatchView, Model, Translate, TurnKind } from "../types.js" */
import { lastPlay } from "./geometry.js";
import { blockedRolls } from "./history.js";
import { diceText } from "./texts.js";
import {
  allowed, bottomSide, lastGame, match, nameOf, turnComplete, viewerSide,
} from "./table.js";

/**
 * The status line's sentences, in the order they are read.
 * @param {Model} model
 * @param {Translate} t
 */
export function statusLines(model, t) {
  return [
    writtenAnswerText(model, t), lastPlayText(model, t), ...passedTurns(model, t), statusText(model, t),
  ].filter(Boolean);
}

/** @type {Partial<Record<TurnKind, string>>} */
const WRITTEN_ANSWERS = { take: "written_take", beaver: "written_beaver", drop: "written_drop" };

/**
 * The answer the other side wrote ahead, played the moment the viewer doubled:
 * the doubler reads it first, until their next play (the history says it too).
 * @param {Model} model
 * @param {Translate} t
 */
function writtenAnswerText(model, t) {
  const m = match(model);
  const me = viewerSide(model);
  const history = m.history || [];
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const turn = history[i];
    if (turn.game !== m.game_number || turn.kind === "play") return "";
    const key = WRITTEN_ANSWERS[turn.kind];
    if (!key) continue;
    if (turn.reason !== "conditional" || turn.side === me) return "";
    const value = turn.kind === "beaver" ? turn.cube_value * 2 : turn.cube_value;
    return t(key, { name: nameOf(model, turn.side), value });
  }
  return "";
}

/**
 * What the other side just played, in notation, until the viewer moves.
 * @param {Model} model
 * @param {Translate} t
 */
function lastPlayText(model, t) {
  const m = match(model);
  const last = lastPlay(m.history, m.game_number, bottomSide(model));
  if (!last || !last.notation || last.side === viewerSide(model)) return "";
  return t("last_play", { name: nameOf(model, last.side), play: last.notation });
}

/**
 * Turns with no legal move since the last real play: the board says so.
 * @param {Model} model
 * @param {Translate} t
 */
function passedTurns(model, t) {
  const m = match(model);
  return blockedRolls(m.history, m.game_number).map((turn) => (turn.side === viewerSide(model)
    ? t("no_move_you", { dice: diceText(turn.dice) })
    : t("no_move", { name: nameOf(model, turn.side), dice: diceText(turn.dice) })));
}

/**
 * @param {Model} model
 * @param {Translate} t
 */
function statusText(model, t) {
  const m = match(model);
  const me = viewerSide(model);
  const mine = me !== null && m.turn === me;
  const other = m.turn === null || m.turn === undefined ? "" : nameOf(model, m.turn);
  if (m.status === "finished") return resultText(model, t);
  switch (m.phase) {
    case "move":
      if (!mine) return t("wait_move", { name: other });
      if (turnComplete(model)) return t("play_complete");
      if (model.selected !== null) return t("pick_target");
      return t("your_move", { dice: diceText(m.dice) });
    case "roll":
      if (!mine) return t("wait_roll", { name: other });
      return allowed(model, "double") ? t("your_roll_or_double") : t("your_roll");
    case "doubled":
      return mine ? t("doubled_you", { name: nameOf(model, 1 - me), value: m.cube.value * 2 })
        : t("wait_double", { name: other, value: m.cube.value * 2 });
    case "resign_offered":
      return mine
        ? t("resign_offered_you", { name: nameOf(model, 1 - me), what: offerText(m) })
        : t("wait_resign", { name: other });
    case "game_over":
      return gameOverText(model);
    default:
      return t("opening");
  }
}

/**
 * The offer on the table, worth what the server says at the cube.
 * @param {MatchView} m
 */
function offerText(m) {
  const offer = (m.resign_offers || []).find(({ value }) => value === m.resign_offered);
  return offer ? offer.text : "";
}

/** @param {Model} model */
function gameOverText(model) {
  const game = lastGame(model);
  return game && game.result ? `${game.result.text}. ${game.result.score_text}.` : "";
}

/**
 * The match's end, said to each: "¡Ganaste! Gana bob la partida."
 * @param {Model} model
 * @param {Translate} t
 */
function resultText(model, t) {
  const m = match(model);
  const won = m.winner;
  if (won === null || won === undefined) return m.outcome || t("match_over");
  const me = viewerSide(model);
  const loser = nameOf(model, 1 - won);
  const words = [];
  const lost = me !== null && me !== won;
  // An abandonment or an absence says who gave the match away: "you" to that player.
  if (lost && m.end_reason === "resign") words.push(t("you_forfeited"));
  else if (lost && m.end_reason === "absence") words.push(t("you_absent"));
  else if (me !== null) words.push(me === won ? t("you_won") : t("you_lost"));
  // The server's sentence: who won, the score, and for a match given up who
  // gave it up, the score then and what the winner got.
  if (m.outcome) return [...words, m.outcome].join(" ");
  if (!lost && m.end_reason === "resign") words.push(`${t("h_forfeit", { name: loser })}.`);
  if (!lost && m.end_reason === "absence") words.push(`${t("h_absence", { name: loser })}.`);
  const winner = nameOf(model, won);
  if (m.format === "single") words.push(t("winner_single", { name: winner }));
  else words.push(t("winner_match", { name: winner, a: m.score[won], b: m.score[1 - won] }));
  return words.join(" ");
}
