// Entry module of the room page when a match is on the table: the SVG board,
// the player panels, the offers and the history, kept current by polling.
//
// The board knows no rules. The state endpoint says what happened and what
// the viewer may do ("allowed"); the steps endpoint says which checker may go
// where next. This module only lets the player build a play out of the
// server's options and sends it.
import { ApiError, createApi, livePoll } from "./api.js";
import {
  BAR, OFF, applySteps, lastPlay, pips, positionId, spotKey, spotNumber, takenParam, viewerBoard,
} from "./geometry.js";
import { createConfirm, h } from "./dom.js";
import { blockedRolls, historyByMove } from "./history.js";
import { focusSpot, wireInput } from "./input.js";
import { drawBoard, pieceIcon, styleOf } from "./render.js";
import { wireShareButtons } from "../share.js";

const HOME_LEFT_KEY = "mesa.board.homeLeft";
const RESULTS_SEEN_KEY = "mesa.board.resultsSeen";

// The home-board setting lives in localStorage; a browser that refuses
// storage simply forgets it.
function stored(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function store(key, value) {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // nothing to do: the setting lasts until the page closes
  }
}

function readJson(id) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : null;
}

const T = { ...readJson("board-strings"), ...readJson("board-plurals") };
const BOT = readJson("board-bot"); // the computer player's strength and style, or null
const config = readJson("board-config");
const app = document.getElementById("board-app");

const plural = new Intl.PluralRules(document.documentElement.lang || "es");

/**
 * The translated string `key` with its "{name}" placeholders filled in. A string
 * with plural forms ({one, other}, from the catalog's ngettext) takes the form
 * for `values.count`: "1 punto", "2 puntos".
 */
function t(key, values = {}) {
  let template = T[key] ?? key;
  if (typeof template === "object") template = template[plural.select(values.count)] ?? template.other;
  return template.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

// --- the controller's state -----------------------------------------------------------

const api = createApi(config);
const model = {
  state: readJson("board-state"),
  etag: null,
  flipped: false,
  homeLeft: stored(HOME_LEFT_KEY) === "1",
  chosen: [], // options taken this turn, in order (undo pops one)
  options: [], // the server's next options after the chosen ones
  optionsFor: null, // "version|taken" the options belong to
  selected: null,
  focusKey: "1",
  focusRow: 1,
  busy: false, // an action is on its way to the server
  loading: false, // the next options are on their way
  message: null, // {text, alert}
};

function match() {
  return model.state && model.state.match;
}

function viewerSide() {
  return model.state ? model.state.viewer.side : null;
}

function bottomSide() {
  const side = viewerSide();
  if (side !== null && side !== undefined) return side;
  return model.flipped ? 1 : 0;
}

function nameOf(side) {
  const seat = model.state.seats.find((s) => s.side === side);
  return seat ? seat.nickname : "?";
}

function allowed(action) {
  const m = match();
  return Boolean(m && m.allowed.includes(action));
}

function myMove() {
  const m = match();
  return Boolean(m && m.phase === "move" && m.turn === viewerSide() && allowed("play"));
}

function taken() {
  return model.chosen.flatMap((option) => option.path);
}

function shownBoard() {
  const m = match();
  const { me, them, side } = m.position;
  const board = viewerBoard(me, them, bottomSide() !== side);
  return myMove() ? applySteps(board, taken()) : board;
}

// --- talking to the server ----------------------------------------------------------------

function resetPlay() {
  model.chosen = [];
  model.options = [];
  model.optionsFor = null;
  model.selected = null;
}

/**
 * Show `state`. `own` is the answer to this page's own action; any other new
 * state that arrives while the player had steps built means the turn was played
 * elsewhere (another tab, another device): the board says so instead of
 * silently dropping their steps.
 */
function takeState(state, etag, { own = false } = {}) {
  const old = model.state;
  if (old && state.version < old.version) return; // an answer overtaken by a newer one
  const moved = !old || !old.match || !state.match
    || old.version !== state.version || old.match.number !== state.match.number;
  const lost = moved && !own && model.chosen.length > 0;
  model.state = state;
  if (etag) model.etag = etag;
  if (moved) {
    resetPlay();
    model.message = lost ? { text: t("stale_tab"), alert: true } : null;
  }
  if (!state.match) {
    window.location.reload(); // no board to show: let the page say why
    return;
  }
  requestRender();
  if (myMove()) loadOptions();
}

/** Fetch the state now, or with `wait` hold the request until the room moves (long polling). */
async function refresh({ wait = false } = {}) {
  const { state, etag } = await api.state(model.etag, wait ? model.state.version : null);
  if (!state) return false;
  const changed = !model.state || state.version !== model.state.version;
  takeState(state, etag);
  return changed;
}

// Started once the board is mounted; until then nobody needs hurrying.
let poll = { hurry() {} };

async function loadOptions() {
  const key = `${model.state.version}|${takenParam(taken())}`;
  if (model.optionsFor === key) return;
  model.optionsFor = key;
  model.loading = true;
  svg.setAttribute("aria-busy", "true");
  try {
    const answer = await api.steps(takenParam(taken()));
    if (model.optionsFor !== key) return; // the player moved on meanwhile
    if (answer.version !== model.state.version) {
      poll.hurry();
      refresh();
      return;
    }
    model.options = answer.options;
    // With every checker on the bar, the bar is the only place to start from.
    const sources = new Set(model.options.map((o) => spotKey(o.from)));
    model.selected = sources.size === 1 && sources.has("bar") ? "bar" : null;
  } catch (error) {
    model.optionsFor = null;
    showError(error);
  } finally {
    if (model.optionsFor === key || model.optionsFor === null) model.loading = false;
  }
  requestRender();
}

async function act(action, body = {}) {
  if (model.busy) return;
  model.busy = true;
  model.message = null;
  requestRender();
  try {
    const { state, etag } = await api.act(action, { version: model.state.version, ...body });
    takeState(state, etag, { own: true });
    poll.hurry();
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) {
      // Played meanwhile elsewhere (often a second tab): show the table as it is now,
      // and say in words why the play the player built was not sent.
      try {
        await refresh();
      } catch {
        // the message below still says what happened
      }
      const text = error.code === "stale_version" ? t("stale_tab") : error.message;
      model.message = { text, alert: true };
      requestRender();
    } else {
      showError(error);
    }
  } finally {
    model.busy = false;
    requestRender();
  }
}

function showError(error) {
  const text = error instanceof ApiError ? error.message : t("offline");
  model.message = { text, alert: true };
  requestRender();
}

// --- building a play --------------------------------------------------------------------------

function activate(key) {
  model.focusKey = ["dice", "cube"].includes(key) ? model.focusKey : key;
  if (model.busy || model.loading) return;
  if (key === "dice") {
    if (allowed("roll")) act("roll");
    return;
  }
  if (key === "cube") {
    if (allowed("double")) offerDouble();
    return;
  }
  if (!myMove()) return;
  const number = spotNumber(key);
  if (model.selected !== null) {
    const from = spotNumber(model.selected);
    const option = model.options.find((o) => o.from === from && o.to === number);
    if (option) {
      choose(option);
      return;
    }
  }
  // Tapping a checker that may move picks it; tapping anywhere else lets go.
  const movable = model.options.some((o) => o.from === number);
  model.selected = movable ? key : null;
  requestRender();
}

function choose(option) {
  model.chosen.push(option);
  model.selected = null;
  model.options = [];
  loadOptions();
  renderNow(); // at once: a quick second tap must not meet the old marks
}

function undo() {
  if (!model.chosen.length || model.busy) return;
  model.chosen.pop();
  model.selected = null;
  model.options = [];
  loadOptions();
  renderNow();
}

function finishTurn() {
  if (!turnComplete()) return;
  act("play", { play: taken() });
}

function turnComplete() {
  return myMove() && model.chosen.length > 0 && model.options.length === 0
    && model.optionsFor === `${model.state.version}|${takenParam(taken())}`;
}

// --- confirmations and offers -------------------------------------------------------------------

/** Ask before an action a slip of the finger would regret. Resolves true on yes. */
const confirmAction = createConfirm(t("cancel"));

async function offerDouble() {
  const value = match().cube.value * 2;
  if (await confirmAction(t("confirm_double", { value }), t("double_yes"))) act("double");
}

async function answerDouble(action) {
  const value = match().cube.value * 2;
  const questions = {
    take: [t("confirm_take", { value }), t("take"), false],
    drop: [t("confirm_drop"), t("drop"), true],
    beaver: [t("confirm_beaver", { value: value * 2 }), t("beaver"), false],
  };
  const [question, label, danger] = questions[action];
  if (await confirmAction(question, label, { danger })) act(action);
}

async function resign() {
  // A partida simple is worth one point however it ends: only that value is offered.
  // Otherwise every value is offered; the engine judges what the format allows.
  const single = match().format === "single";
  const choices = single ? [1] : [1, 2, 3];
  const select = h("select", { id: "resign-choice" }, choices.map((value) => (
    h("option", { value, text: t(`resign_${value}`) }))));
  const offerable = allowed("resign_offer");
  const extra = offerable && !single
    ? h("p", {}, [h("label", { for: "resign-choice", text: t("resign_as") }), " ", select])
    : null;
  if (offerable) {
    const question = single ? t("resign_question_single") : t("resign_question");
    const offer = await confirmAction(question, t("resign_offer"), { extra });
    if (offer) act("resign_offer", { value: Number(select.value) });
  } else if (allowed("forfeit")) {
    forfeit();
  }
}

async function forfeit() {
  const question = match().format === "single" ? t("confirm_forfeit_single") : t("confirm_forfeit_match");
  if (await confirmAction(question, t("forfeit"), { danger: true })) act("forfeit");
}

async function claimAbsence() {
  const opponent = nameOf(1 - viewerSide());
  if (await confirmAction(t("confirm_absence", { name: opponent }), t("claim_absence"), { danger: true })) {
    act("claim_absence");
  }
}

async function acceptResignation() {
  if (await confirmAction(t("confirm_resign_accept"), t("resign_accept"))) act("resign_accept");
}

// --- the page around the board -----------------------------------------------------------------

const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
svg.setAttribute("class", "board-svg");
svg.setAttribute("role", "group");
svg.setAttribute("aria-label", t("board"));
const parts = {
  top: h("div", { class: "player-slot top" }),
  bottom: h("div", { class: "player-slot bottom" }),
  status: h("p", { class: "board-status", role: "status", "aria-live": "polite" }),
  alert: h("p", { class: "board-alert", role: "alert" }),
  prompt: h("div", { class: "board-prompt" }),
  result: h("div", {
    class: "board-result", role: "alertdialog", "aria-labelledby": "board-result-title", hidden: true,
  }),
  controls: h("div", { class: "board-controls" }),
  info: h("div", { class: "board-info" }),
  history: h("div", { class: "board-history" }),
  proof: h("div", { class: "board-proof" }),
};

function mount() {
  const fallback = document.getElementById("board-fallback");
  if (fallback) fallback.hidden = true;
  app.hidden = false;
  app.replaceChildren(
    h("div", { class: "board-main" }, [
      h("h1", { class: "visually-hidden", text: t("board") }),
      parts.top,
      h("div", { class: "board-frame" }, [svg, parts.result]),
      parts.status,
      parts.alert,
      parts.prompt,
      parts.controls,
      parts.bottom,
    ]),
    h("aside", { class: "board-side" }, [parts.info, parts.history, parts.proof]),
  );
  wireInput(svg, {
    onActivate: activate,
    onCancel: () => {
      model.selected = null;
      requestRender();
    },
    onFocusMove: (key, row) => {
      model.focusKey = key;
      model.focusRow = row;
      renderNow();
      focusSpot(svg, key);
    },
    options: () => ({ homeLeft: model.homeLeft, row: model.focusRow }),
  });
}

// --- rendering ---------------------------------------------------------------------------------------

let frame = null;
function requestRender() {
  if (frame === null) frame = requestAnimationFrame(renderNow);
}

function renderNow() {
  if (frame !== null) cancelAnimationFrame(frame);
  frame = null;
  const m = match();
  if (!m) return;
  const hadFocus = svg.contains(document.activeElement);
  const board = shownBoard();
  drawBoard(svg, boardView(board));
  svg.setAttribute("aria-busy", model.busy || model.loading ? "true" : "false");
  if (hadFocus) focusSpot(svg, model.focusKey);
  renderPlayers(board);
  renderStatus();
  renderPrompt();
  renderControls();
  renderInfo(board);
  renderHistory();
  renderProof();
  renderResult();
}

function boardView(board) {
  const m = match();
  const bottom = bottomSide();
  const moving = myMove();
  const sources = new Set(moving ? model.options.map((o) => spotKey(o.from)) : []);
  const targets = new Map();
  if (moving && model.selected !== null) {
    const from = spotNumber(model.selected);
    for (const option of model.options) {
      const key = spotKey(option.to);
      if (option.from === from && !targets.has(key)) targets.set(key, option.label);
    }
  }
  const lastFrom = new Set();
  const lastTo = new Set();
  const last = lastPlay(m.history, m.game_number, bottom);
  if (last && last.side !== viewerSide()) {
    const srcs = new Set(last.steps.map(([src]) => spotKey(src)));
    const dsts = new Set(last.steps.map(([, dst]) => spotKey(dst)));
    for (const key of srcs) if (!dsts.has(key)) lastFrom.add(key);
    for (const key of dsts) if (!srcs.has(key)) lastTo.add(key);
  }
  let dice = null;
  if (m.dice && m.phase === "move") {
    const values = m.dice[0] === m.dice[1] ? [m.dice[0], m.dice[0], m.dice[0], m.dice[0]] : m.dice.slice();
    const used = values.map(() => false);
    if (moving) {
      for (const die of model.chosen.flatMap((o) => o.dice)) {
        const i = values.findIndex((v, j) => v === die && !used[j]);
        if (i >= 0) used[i] = true;
      }
    }
    dice = { values, used, mine: m.turn === bottom };
  }
  const side = (owner) => (owner === null || owner === undefined ? null : (owner === bottom ? "mine" : "theirs"));
  let cube = null;
  if (m.phase === "doubled") {
    // The offered cube waits on the taker's side, already turned to its new value.
    cube = { value: m.cube.value * 2, owner: side(m.turn), offered: true };
  } else if (m.format !== "single" && !m.crawford) {
    cube = { value: m.cube.value, owner: side(m.cube.owner) };
  }
  return {
    board,
    styles: [styleOf(bottom), styleOf(1 - bottom)],
    homeLeft: model.homeLeft,
    selected: model.selected,
    sources,
    targets,
    lastFrom,
    lastTo,
    dice,
    canRoll: allowed("roll") && m.phase === "roll",
    cube,
    canDouble: allowed("double"),
    labels: spotLabels(board, sources, targets),
    focusKey: model.focusKey,
  };
}

function checkers(count, mine) {
  if (!count) return t("none");
  if (mine) return count === 1 ? t("mine_one") : t("mine_many", { count });
  const name = nameOf(1 - bottomSide());
  return count === 1 ? t("theirs_one", { name }) : t("theirs_many", { count, name });
}

function whoseCheckers(count, side) {
  // A spectator reads names on both sides; a player reads "tuyas" for their own.
  if (viewerSide() !== null && viewerSide() !== undefined) return checkers(count, side === "mine");
  const name = nameOf(side === "mine" ? bottomSide() : 1 - bottomSide());
  if (!count) return t("none");
  return count === 1 ? t("theirs_one", { name }) : t("theirs_many", { count, name });
}

function spotLabels(board, sources, targets) {
  const labels = new Map();
  const extras = (key) => {
    const words = [];
    if (model.selected === key) words.push(t("selected"));
    else if (sources.has(key)) words.push(t("movable"));
    if (targets.has(key)) words.push(t("target", { dice: targets.get(key) }));
    return words.length ? `, ${words.join(", ")}` : "";
  };
  for (let n = 1; n <= 24; n += 1) {
    const mine = board.mine[n];
    const what = mine ? whoseCheckers(mine, "mine")
      : board.theirs[n] ? whoseCheckers(board.theirs[n], "theirs") : t("empty");
    labels.set(String(n), t("point", { n, what }) + extras(String(n)));
  }
  const barWhat = [whoseCheckers(board.mine[BAR], "mine"), whoseCheckers(board.theirs[BAR], "theirs")];
  labels.set("bar", t("bar", { what: barWhat.join("; ") }) + extras("bar"));
  const offWhat = [whoseCheckers(board.mine[OFF], "mine"), whoseCheckers(board.theirs[OFF], "theirs")];
  labels.set("off", t("off", { what: offWhat.join("; ") }) + extras("off"));
  labels.set("dice", t("roll"));
  labels.set("cube", t("double", { value: match().cube.value * 2 }));
  return labels;
}

const relative = new Intl.RelativeTimeFormat(document.documentElement.lang || "es", { numeric: "auto" });

/** "hace 5 minutos", "ayer"; null under a minute ("desde este minuto" reads oddly). */
function since(iso) {
  const seconds = (Date.parse(iso) - Date.now()) / 1000;
  const units = [["day", 86400], ["hour", 3600], ["minute", 60]];
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return null;
}

function playerCard(side, board) {
  const m = match();
  const bottom = bottomSide();
  const isBottom = side === bottom;
  const seat = model.state.seats.find((s) => s.side === side);
  const [bottomPips, topPips] = pips(board);
  const rows = [
    h("span", { class: "player-name" }, [
      seat ? seat.nickname : "?",
      seat && seat.is_you ? h("span", { class: "muted", text: ` (${t("you")})` }) : null,
    ]),
    h("span", { class: "player-side", text: side === 0 ? t("side_caps") : t("side_tyres") }),
    h("span", { class: "player-pips", text: t("pips", { count: isBottom ? bottomPips : topPips }) }),
  ];
  if (m.format === "match") {
    const needed = m.away ? m.away[side] : Math.max(0, m.length - m.score[side]);
    const words = [t("score", { count: m.score[side] }), t("needed", { count: needed })];
    rows.push(h("span", { class: "player-score", text: words.join(", ") }));
  } else if (m.format === "session") {
    rows.push(h("span", { class: "player-score", text: t("score", { count: m.score[side] }) }));
  }
  if (m.format !== "single" && m.cube.owner === side) {
    rows.push(h("span", { class: "badge", text: t("cube_owner", { value: m.cube.value }) }));
  }
  const onTurn = m.turn === side && m.status !== "finished";
  if (onTurn) {
    const ago = m.turn_started_at ? since(m.turn_started_at) : null;
    const when = ago ? t("turn_since", { since: ago }) : t("on_turn");
    rows.push(h("span", { class: "badge turn", text: when }));
  }
  if (seat && seat.is_bot && BOT) {
    // Who you face: its strength next to the name, how it plays on a line of its own.
    rows.splice(1, 0, h("span", { class: "badge player-bot", text: BOT.label }));
    rows.push(h("span", { class: "player-style muted", text: BOT.style }));
  }
  return h("div", { class: `player-card${onTurn ? " on-turn" : ""}`, "data-side": side }, [
    pieceIcon(side),
    h("div", { class: "player-lines" }, rows),
  ]);
}

function renderPlayers(board) {
  const bottom = bottomSide();
  parts.top.replaceChildren(playerCard(1 - bottom, board));
  parts.bottom.replaceChildren(playerCard(bottom, board));
}

function diceText(dice) {
  return `${dice[0]}-${dice[1]}`;
}

/** Turns with no legal move since the last real play: the board says so. */
function passedTurns() {
  const m = match();
  return blockedRolls(m.history, m.game_number).map((turn) => (turn.side === viewerSide()
    ? t("no_move_you", { dice: diceText(turn.dice) })
    : t("no_move", { name: nameOf(turn.side), dice: diceText(turn.dice) })));
}

function statusText() {
  const m = match();
  const me = viewerSide();
  const mine = me !== null && me !== undefined && m.turn === me;
  const other = m.turn === null || m.turn === undefined ? "" : nameOf(m.turn);
  if (m.status === "finished") return resultText();
  switch (m.phase) {
    case "move":
      if (!mine) return t("wait_move", { name: other });
      if (turnComplete()) return t("play_complete");
      if (model.selected !== null) return t("pick_target");
      return t("your_move", { dice: diceText(m.dice) });
    case "roll":
      return mine ? (allowed("double") ? t("your_roll_or_double") : t("your_roll")) : t("wait_roll", { name: other });
    case "doubled":
      return mine ? t("doubled_you", { name: nameOf(1 - me), value: m.cube.value * 2 })
        : t("wait_double", { name: other, value: m.cube.value * 2 });
    case "resign_offered":
      return mine ? t("resign_offered_you", { name: nameOf(1 - me), what: t(`resign_${m.resign_offered}`) })
        : t("wait_resign", { name: other });
    case "game_over":
      return gameOverText();
    default:
      return t("opening");
  }
}

function lastGame() {
  const m = match();
  const finished = m.games.filter((g) => g.winner !== null && g.winner !== undefined);
  return finished[finished.length - 1] || null;
}

function gameOverText() {
  const game = lastGame();
  return game && game.result ? `${game.result.text}. ${game.result.score_text}.` : "";
}

function resultText() {
  const m = match();
  if (m.winner === null || m.winner === undefined) return t("match_over");
  const me = viewerSide();
  const words = [];
  const lost = me !== null && me !== undefined && me !== m.winner;
  // An abandonment or an absence says who gave the match away: "you" to that player.
  if (lost && m.end_reason === "resign") words.push(t("you_forfeited"));
  else if (lost && m.end_reason === "absence") words.push(t("you_absent"));
  else {
    if (me !== null && me !== undefined) words.push(me === m.winner ? t("you_won") : t("you_lost"));
    if (m.end_reason === "resign") words.push(`${t("h_forfeit", { name: nameOf(1 - m.winner) })}.`);
    if (m.end_reason === "absence") words.push(`${t("h_absence", { name: nameOf(1 - m.winner) })}.`);
  }
  if (m.format === "single") words.push(t("winner_single", { name: nameOf(m.winner) }));
  else words.push(t("winner_match", { name: nameOf(m.winner), a: m.score[m.winner], b: m.score[1 - m.winner] }));
  return words.join(" ");
}

/** What the other side just played, in notation, until the viewer moves. */
function lastPlayText() {
  const m = match();
  const last = lastPlay(m.history, m.game_number, bottomSide());
  if (!last || !last.notation || last.side === viewerSide()) return "";
  return t("last_play", { name: nameOf(last.side), play: last.notation });
}

function renderStatus() {
  const lines = [lastPlayText(), ...passedTurns(), statusText()].filter(Boolean);
  parts.status.textContent = lines.join(" ");
  parts.alert.textContent = model.message ? model.message.text : "";
  parts.alert.hidden = !model.message;
}

function button(label, onclick, { style = null, disabled = false, id = null } = {}) {
  return h("button", {
    type: "button", class: style, disabled: disabled || model.busy, id, text: label, onclick,
  });
}

function renderPrompt() {
  const m = match();
  const buttons = [];
  const notes = [];
  if (allowed("take")) buttons.push(button(t("take"), () => answerDouble("take")));
  if (allowed("beaver")) buttons.push(button(t("beaver"), () => answerDouble("beaver"), { style: "secondary" }));
  if (allowed("drop")) buttons.push(button(t("drop"), () => answerDouble("drop"), { style: "danger" }));
  if (allowed("resign_accept")) buttons.push(button(t("resign_accept"), acceptResignation));
  if (allowed("resign_decline")) buttons.push(button(t("resign_decline"), () => act("resign_decline"), { style: "secondary" }));
  if (allowed("next_game")) buttons.push(button(t("next_game"), () => act("next_game")));
  if (allowed("stop")) buttons.push(button(t("stop"), () => act("stop"), { style: "secondary" }));
  if (allowed("claim_absence")) {
    notes.push(t("absence_now", { name: nameOf(1 - viewerSide()) }));
    buttons.push(button(t("claim_absence"), claimAbsence, { style: "danger" }));
    if (allowed("keep_waiting")) buttons.push(button(t("keep_waiting"), () => act("keep_waiting"), { style: "secondary" }));
  } else if (m.absence && !m.absence.can_claim && m.turn_started_at
    && Date.now() - Date.parse(m.turn_started_at) > 6 * 3600 * 1000) {
    const when = new Date(m.absence.claimable_at).toLocaleString(document.documentElement.lang || "es");
    notes.push(t("absence_later", { name: nameOf(1 - viewerSide()), when }));
  }
  if (allowed("rematch_offer")) buttons.push(button(t("rematch_offer"), () => act("rematch_offer")));
  if (allowed("rematch_accept")) {
    notes.push(t("rematch_offered_you", { name: nameOf(1 - viewerSide()) }));
    buttons.push(button(t("rematch_accept"), () => act("rematch_accept")));
  }
  if (m.status === "finished" && m.rematch_offered_by !== null && !allowed("rematch_accept")) {
    const mine = model.state.seats.find((s) => s.number === m.rematch_offered_by);
    notes.push(mine && mine.is_you ? t("rematch_waiting") : t("rematch_offered", { name: mine ? mine.nickname : "?" }));
  }
  // replaceChildren writes a null out as the word "null": leave the empty row out instead.
  parts.prompt.replaceChildren(
    ...notes.map((note) => h("p", { text: note })),
    ...(buttons.length ? [h("div", { class: "actions" }, buttons)] : []),
  );
  parts.prompt.hidden = !notes.length && !buttons.length;
}

function renderControls() {
  const controls = [];
  if (myMove()) {
    controls.push(button(t("undo"), undo, { style: "secondary", disabled: !model.chosen.length, id: "board-undo" }));
    controls.push(button(t("finish"), finishTurn, { disabled: !turnComplete(), id: "board-finish" }));
  }
  // Each button does what it says: off your turn only "Abandonar" is possible, and a
  // button named "Rendir la partida…" must not open the dialog that gives up the match.
  if (allowed("resign_offer")) {
    controls.push(button(t("resign"), resign, { style: "secondary quiet", id: "board-resign" }));
  }
  if (allowed("forfeit")) {
    controls.push(button(t("forfeit"), forfeit, { style: "secondary quiet", id: "board-forfeit" }));
  }
  const m = match();
  if (m.resign_declined && m.turn === viewerSide() && !allowed("resign_offer") && m.status !== "finished") {
    // The button is gone for the rest of this turn: say why rather than let it vanish.
    controls.push(h("p", { class: "board-note", id: "board-resign-note", text: t("resign_declined_note") }));
  }
  if (viewerSide() === null || viewerSide() === undefined) {
    controls.push(button(t("flip"), () => {
      model.flipped = !model.flipped;
      requestRender();
    }, { style: "secondary", id: "board-flip" }));
  }
  const homeLeft = h("input", {
    type: "checkbox", id: "board-home-left", checked: model.homeLeft,
    onchange: (event) => {
      model.homeLeft = event.target.checked;
      store(HOME_LEFT_KEY, model.homeLeft ? "1" : "0");
      requestRender();
    },
  });
  controls.push(h("label", { class: "setting" }, [homeLeft, ` ${t("home_left")}`]));
  // Keep the focus on a button that survives the redraw.
  const focused = parts.controls.contains(document.activeElement) ? document.activeElement.id : null;
  parts.controls.replaceChildren(...controls);
  if (focused) document.getElementById(focused)?.focus();
}

function renderInfo(board) {
  const m = match();
  const lines = [];
  if (m.format === "match") {
    lines.push(t("match_to", { count: m.length }));
  } else if (m.format === "session") {
    lines.push(t("session_game", { number: m.game_number }));
  } else {
    lines.push(t("single"));
  }
  if (m.format === "match" && m.crawford) {
    // No cube in this game at all: say so, and no "Cubo en el centro" beside it.
    lines.push(t("crawford"));
  } else if (m.format !== "single") {
    lines.push(m.cube.owner === null || m.cube.owner === undefined
      ? t("cube_centre", { value: m.cube.value })
      : t("cube_of", { value: m.cube.value, name: nameOf(m.cube.owner) }));
  }
  if (viewerSide() === null || viewerSide() === undefined) lines.push(t("watching"));
  parts.info.replaceChildren(
    ...lines.map((line) => h("p", { text: line })),
    h("p", {}, [
      `${t("position_id")} `,
      h("span", { class: "code id", id: "board-position-id", text: positionId(board) }),
      // The Match ID is the match's own (score, cube, dice), not the viewer's; the title
      // holds the PositionID:MatchID pair GNU Backgammon reads, seen from the side on roll.
      ` · ${t("match_id")} `,
      h("span", { class: "code id", id: "board-match-id", title: m.gnubg_id, text: m.match_id }),
    ]),
  );
}

let historyKey = null;
function renderHistory() {
  const m = match();
  const key = `${m.number}|${m.history.length}|${bottomSide()}|${(m.games || []).filter((g) => g.result).length}`;
  if (key === historyKey) return;
  historyKey = key;
  const sections = [];
  const results = new Map((m.games || []).map((g) => [g.number, g.result]));
  for (const { game, before, moves, after } of historyByMove(m.history, { nameOf, t })) {
    sections.push(h("h3", { text: t("game_n", { number: game }) }));
    sections.push(...before.map((line) => h("p", { class: "history-note", text: line })));
    // One numbered line per move, both players' turns side by side, as in a score sheet.
    sections.push(h("ol", { class: "moves" }, moves.map(({ number, lines }) => h("li", {}, [
      h("span", { class: "move-number", text: `${number}.` }), ` ${lines.join(" · ")}`,
    ]))));
    sections.push(...after.map((line) => h("p", { class: "history-note", text: line })));
    // The server's sentence for the game's end: "Dani gana 2 puntos (gammon)".
    const result = results.get(game);
    if (result) sections.push(h("p", { class: "history-result", text: `${result.text}. ${result.score_text}.` }));
  }
  parts.history.replaceChildren(h("h2", { text: t("history") }), ...sections);
  const list = parts.history.querySelector("ol.moves:last-of-type");
  if (list) list.scrollTop = list.scrollHeight;
}

// The verifiable dice, Mesa's promise: each game's commitment, and once it ends its
// seed and the command that recomputes every roll.
let proofKey = null;
function renderProof() {
  const games = match().games || [];
  const key = games.map((g) => `${g.number}:${g.commitment}:${g.seed || ""}:${g.rolls}`).join("|");
  if (key === proofKey) return;
  proofKey = key;
  const blocks = games.map((g) => h("div", { class: "dice-proof" }, [
    games.length > 1 ? h("h3", { text: t("game_n", { number: g.number }) }) : null,
    h("p", {}, [`${t("proof_commitment")} `, h("span", { class: "code", text: g.commitment })]),
    ...(g.seed
      ? [
        h("p", {}, [`${t("proof_seed")} `, h("span", { class: "code", text: g.seed })]),
        h("p", { text: t("proof_check") }),
        h("pre", { class: "code" }, [h("code", { text: `python -m games.engine.dice ${g.seed} ${g.rolls}` })]),
      ]
      : [h("p", { text: t("proof_later") })]),
  ]));
  parts.proof.replaceChildren(h("h2", { text: t("proof_title") }), ...blocks);
}

// --- the result of each game, said out loud --------------------------------------------------------

// The games whose result this browser has shown and the player closed: "slug:match:game".
const seenResults = new Set((() => {
  try {
    return JSON.parse(stored(RESULTS_SEEN_KEY) || "[]");
  } catch {
    return [];
  }
})());

function resultKey(game) {
  return `${model.state.room.slug}:${match().number}:${game.number}`;
}

/**
 * The game that just ended, while its result waits to be seen: in a match or a
 * session the next game starts by itself, so the result stands over the board
 * until the player closes it. A partida simple's one game is the whole match:
 * the status line says it.
 */
function pendingResult() {
  const m = match();
  const game = lastGame();
  if (m.format === "single" || !game || !game.result) return null;
  if (game.number < m.game_number - 1) return null; // long ago: the history has it
  return seenResults.has(resultKey(game)) ? null : game;
}

function closeResult(game) {
  seenResults.add(resultKey(game));
  store(RESULTS_SEEN_KEY, JSON.stringify([...seenResults].slice(-50)));
  renderResult();
  focusSpot(svg, model.focusKey); // back to the board the result stood over
}

let resultShown = null;
function renderResult() {
  const game = pendingResult();
  const key = game ? resultKey(game) : null;
  if (key === resultShown) return;
  resultShown = key;
  parts.result.hidden = !game;
  svg.toggleAttribute("inert", Boolean(game)); // the board under it waits
  if (!game) {
    parts.result.replaceChildren();
    return;
  }
  // Never disabled, unlike the action buttons: closing it sends nothing.
  const seen = h("button", { type: "button", id: "board-result-seen", text: t("result_seen"), onclick: () => closeResult(game) });
  parts.result.replaceChildren(
    h("h2", { id: "board-result-title", text: t("game_over_n", { number: game.number }) }),
    h("p", { class: "result-line", text: `${game.result.text}.` }),
    h("p", { class: "result-score", text: `${game.result.score_text}.` }),
    seen,
  );
  seen.focus();
}

// --- start ---------------------------------------------------------------------------------------------

if (app && config && model.state && model.state.match) {
  mount();
  renderNow();
  poll = livePoll(() => refresh({ wait: true })); // the board's only poller
  if (myMove()) loadOptions();
  window.setInterval(requestRender, 60000); // "desde hace 5 minutos" moves on
}
wireShareButtons();
