// The move history in words and standard notation ("bob 66: 24/18(2) 13/1*").
// Pure: the names and the translated templates come in as functions, so
// `node --test tests/js` checks it without a page.

/**
 * The history numbered by move, as a score sheet: one number per pair of turns,
 * the side that moved first in the game, then the other ("3. ana 61: 13/7 8/7 ·
 * bob 55: …"). A cube or resignation exchange stays in the move it interrupted.
 * Returns [{game, before, moves: [{number, lines}], after}]: `before` holds the
 * opening roll(s), `after` what closes the game or the session.
 */
export function historyByMove(history, { nameOf, t }) {
  const games = new Map();
  const progress = new Map();
  for (const turn of history) {
    if (!progress.has(turn.game)) {
      progress.set(turn.game, { opening: true, dice: null });
      games.set(turn.game, { game: turn.game, before: [], moves: [], after: [], starter: null });
    }
    const state = progress.get(turn.game);
    const opening = state.opening && turn.kind === "roll";
    const line = describe(turn, state, nameOf, t);
    const sheet = games.get(turn.game);
    if (line === null) continue;
    if (opening) {
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

function describe(turn, state, nameOf, t) {
  const name = nameOf(turn.side);
  switch (turn.kind) {
    case "roll":
      if (state.opening) {
        // The opening: one die each; a tie rolls again.
        if (turn.dice[0] !== turn.dice[1]) state.opening = false;
        state.dice = turn.dice;
        return t("opening_roll", { first: nameOf(0), a: turn.dice[0], second: nameOf(1), b: turn.dice[1] });
      }
      state.dice = turn.dice;
      if (isBlocked(turn)) return t("history_play", { name, dice: diceWord(turn.dice), play: t("cannot_move") });
      return null; // written with the play that follows
    case "play":
      return t("history_play", {
        name, dice: state.dice ? diceWord(state.dice) : "", play: turn.notation || t("cannot_move"),
      });
    case "double":
      return t("h_double", { name, value: turn.cube_value * 2 });
    case "take":
      return t("h_take", { name, value: turn.cube_value });
    case "beaver":
      return t("h_beaver", { name, value: turn.cube_value * 2 });
    case "drop":
      return t("h_drop", { name });
    case "resign_offer":
      return t("h_resign_offer", { name, what: t(`resign_${turn.value}`) });
    case "resign_accept":
      return t("h_resign_accept", { name });
    case "resign_decline":
      return t("h_resign_decline", { name });
    case "forfeit":
      return turn.reason === "absence" ? t("h_absence", { name }) : t("h_forfeit", { name });
    case "next_game":
      return t("h_next_game");
    case "stop":
      return t("h_stop", { name });
    default:
      return `${name}: ${turn.kind}`;
  }
}

/** Dice as the notation writes them: the higher first, "65", "66". */
export function diceWord(dice) {
  return [...dice].sort((a, b) => b - a).join("");
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
