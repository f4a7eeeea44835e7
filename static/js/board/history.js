// The move history laid out as a score sheet. The sentences come written
// from the server (games/selectors/history.py, each entry's `text` in the page's
// language); this module only decides where each one stands. Pure, so
// `node --test tests/js` checks it without a page.
/** @import { HistoryEntry, Side, TurnKind } from "../types.js" */

/**
 * One game of the score sheet.
 * @typedef {object} SheetGame
 * @property {number} game
 * @property {string[]} before  the opening roll(s)
 * @property {{number: number, lines: string[]}[]} moves
 * @property {string[]} after  what closes the game or the session
 * @property {string[]} next  the line that says another game follows
 */

/**
 * The history numbered by move, as a score sheet: one number per pair of turns,
 * the side that moved first in the game, then the other ("3. ana 61: 13/7 8/7 ·
 * bob 55: …"). A cube or resignation exchange stays in the move it interrupted.
 * Returns [{game, before, moves: [{number, lines}], after, next}]: `before` holds
 * the opening roll(s), `after` what closes the game or the session, `next` the
 * line that says another game follows. The server records that "next game" turn
 * in the game it opens; it is written under the game it closes, never as the
 * last line of a game still being played.
 * @param {HistoryEntry[]} history
 * @returns {SheetGame[]}
 */
export function historyByMove(history) {
  /**
   * @typedef {object} Sheet
   * @property {number} game
   * @property {string[]} before
   * @property {{number: number, lines: string[], answered: boolean}[]} moves
   * @property {string[]} after
   * @property {string[]} next
   * @property {Side | null} starter
   */
  /** @type {Map<number, Sheet>} */
  const games = new Map();
  /** @param {number} game */
  const sheetOf = (game) => {
    let sheet = games.get(game);
    if (!sheet) {
      sheet = { game, before: [], moves: [], after: [], next: [], starter: null };
      games.set(game, sheet);
    }
    return sheet;
  };
  for (const turn of history) {
    const sheet = sheetOf(turn.game);
    const line = turn.text;
    if (line === null || line === undefined) continue; // a roll its play writes
    if (turn.kind === "next_game") {
      games.get(turn.game - 1)?.next.push(line);
      continue;
    }
    if (turn.opening) {
      sheet.before.push(line);
      continue;
    }
    if (CLOSING.has(turn.kind)) {
      sheet.after.push(line);
      continue;
    }
    if (sheet.starter === null) sheet.starter = turn.side;
    let move = sheet.moves[sheet.moves.length - 1];
    if (!move || (turn.side === sheet.starter && move.answered)) {
      move = { number: sheet.moves.length + 1, lines: [], answered: false };
      sheet.moves.push(move);
    }
    move.lines.push(line);
    if (turn.side !== sheet.starter && (turn.kind === "play" || isBlocked(turn))) move.answered = true;
  }
  return [...games.values()].map(({ game, before, moves, after, next }) => ({
    game, before, after, next, moves: moves.map(({ number, lines }) => ({ number, lines })),
  }));
}

/** @type {Set<TurnKind>} */
const CLOSING = new Set(["stop", "forfeit"]);

/** @param {HistoryEntry} turn */
function isBlocked(turn) {
  return turn.kind === "roll" && (turn.blocked || (Array.isArray(turn.steps) && turn.steps.length === 0));
}

/**
 * The rolls of game `game` that found no legal move since the last real
 * action, oldest first: the board says so, since the turn passed by itself.
 * @param {HistoryEntry[]} history
 * @param {number} game
 */
export function blockedRolls(history, game) {
  /** @type {HistoryEntry[]} */
  const blocked = [];
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const turn = history[i];
    if (turn.game !== game) break;
    if (isBlocked(turn)) blocked.unshift(turn);
    else if (turn.kind !== "roll") break;
  }
  return blocked;
}
