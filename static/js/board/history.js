// The move history laid out as a score sheet. The sentences come written
// from the server (games/selectors/history.py, each entry's `text` in the page's
// language); this module only decides where each one stands. Pure, so
// `node --test tests/js` checks it without a page.

/**
 * The history numbered by move, as a score sheet: one number per pair of turns,
 * the side that moved first in the game, then the other ("3. ana 61: 13/7 8/7 ·
 * bob 55: …"). A cube or resignation exchange stays in the move it interrupted.
 * Returns [{game, before, moves: [{number, lines}], after}]: `before` holds the
 * opening roll(s), `after` what closes the game or the session.
 */
export function historyByMove(history) {
  const games = new Map();
  for (const turn of history) {
    if (!games.has(turn.game)) {
      games.set(turn.game, { game: turn.game, before: [], moves: [], after: [], starter: null });
    }
    const sheet = games.get(turn.game);
    const line = turn.text;
    if (line === null || line === undefined) continue; // a roll its play writes
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
  return [...games.values()].map(({ game, before, moves, after }) => ({
    game, before, after, moves: moves.map(({ number, lines }) => ({ number, lines })),
  }));
}

const CLOSING = new Set(["next_game", "stop", "forfeit"]);

function isBlocked(turn) {
  return turn.kind === "roll" && (turn.blocked || (Array.isArray(turn.steps) && turn.steps.length === 0));
}

/**
 * The rolls of game `game` that found no legal move since the last real
 * action, oldest first: the board says so, since the turn passed by itself.
 */
export function blockedRolls(history, game) {
  const blocked = [];
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const turn = history[i];
    if (turn.game !== game) break;
    if (isBlocked(turn)) blocked.unshift(turn);
    else if (turn.kind !== "roll") break;
  }
  return blocked;
}
