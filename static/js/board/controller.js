// The board's controller: it owns the state from the server, talks to the API,
// decides what the board and the panels show, and reacts to what the player
// does on them.
//
// The board knows no rules. The state endpoint says what happened and what
// the viewer may do ("allowed"); the steps endpoint says which checker may go
// where next. This module only lets the player build a play out of the
// server's options and sends it.
/** @import { ActionName, BoardConfig, BotCard, Model, RoomState, SpotKey, StepOption, TableState, Texts } from "../types.js" */
import { createActions } from "./actions.js";
import { ApiError, createApi } from "./api.js";
import { createBoard } from "./board.js";
import { createConditional } from "./conditional.js";
import { createDialogs } from "./dialogs.js";
import { find, h, store, stored } from "./dom.js";
import { spotKey, spotNumber, takenParam } from "./geometry.js";
import { createPanels } from "./panels.js";
import { createResult } from "./result.js";
import { statusLines } from "./status.js";
import {
  allowed, match, myMove, nameOf, onTable, optionsKey, overtaken, shownBoard, taken, turnComplete,
  viewerSide,
} from "./table.js";
import { boardView } from "./view.js";
import { channelCheck, roomChannel } from "../channel.js";
import { livePoll } from "../poll.js";

const HOME_LEFT_KEY = "mesa.board.homeLeft";
// The review URL comes with these numbers in place of the match and the game (_board_app.html).
const REVIEW_MATCH = "/90001/";
const REVIEW_GAME = "/90002/";
const ANALYSIS_LOOK_MS = 10000; // an analysis in progress moves no version: look again after this
const ANALYSIS_LOOK_MAX_MS = 300000; // ...and at the latest this often

/**
 * Mount the board in `app` (hiding the form board) and keep it current.
 * `state` is the first state, from the page; `config` the API's URLs; `texts`
 * from createTexts; `bot` the computer player's card or null.
 * @param {HTMLElement} app
 * @param {{state: TableState, config: BoardConfig, texts: Texts, bot: BotCard | null}} start
 */
export function startController(app, { state, config, texts, bot }) {
  const { t } = texts;
  const api = createApi(config);
  /** @type {Model} */
  const model = {
    state,
    etag: null,
    flipped: false,
    homeLeft: stored(HOME_LEFT_KEY) === "1",
    chosen: [], // options taken this turn, in order (undo pops one)
    options: [], // the server's next options after the chosen ones
    optionsFor: null, // "version|taken" the options belong to
    selected: null,
    busy: false, // an action is on its way to the server
    loading: false, // the next options are on their way
    message: null, // {text, alert}
  };
  /** @type {{hurry: () => void}} */
  let poll = { hurry() {} }; // started once the board is drawn

  // --- the page --------------------------------------------------------------------------------

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
    conditional: h("section", { class: "board-conditional", "aria-labelledby": "cond-title", hidden: true }),
    info: h("div", { class: "board-info" }),
    history: h("div", { class: "board-history" }),
    proof: h("div", { class: "board-proof" }),
    analysis: h("div", { class: "board-analysis", id: "board-analysis", hidden: true }),
  };
  const fallback = document.getElementById("board-fallback");
  if (fallback) fallback.hidden = true;
  // The page's analysis list is drawn once; the board keeps its own one current.
  const staticAnalysis = document.getElementById("analysis-links");
  if (staticAnalysis) staticAnalysis.remove();
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
      parts.conditional,
      parts.bottom,
    ]),
    h("aside", { class: "board-side" }, [parts.info, parts.analysis, parts.history, parts.proof]),
  );

  const dialogs = createDialogs(texts, model, act);
  const board = createBoard(svg, {
    onSpot: pickSpot,
    onRoll: () => ready() && allowed(model, "roll") && act("roll"),
    onDouble: () => ready() && allowed(model, "double") && dialogs.offerDouble(),
    onCancel: () => {
      model.selected = null;
      requestRender();
    },
  });
  /** @type {(matchNumber: number, game: number) => string} */
  const reviewUrl = (matchNumber, game) => config.reviewUrl
    .replace(REVIEW_MATCH, `/${matchNumber}/`).replace(REVIEW_GAME, `/${game}/`);
  const panels = createPanels(parts, texts, bot, reviewUrl);
  const actions = createActions(parts, texts, {
    ...dialogs,
    act,
    undo,
    finish: finishTurn,
    flip() {
      model.flipped = !model.flipped;
      requestRender();
    },
    /** @param {boolean} checked */
    homeLeft(checked) {
      model.homeLeft = checked;
      store(HOME_LEFT_KEY, checked ? "1" : "0");
      requestRender();
    },
  });
  const conditional = createConditional(parts.conditional, texts, { act });
  const result = createResult(parts.result, texts, {
    onShown: (open) => board.set({ inert: open }),
    onClosed: () => board.focus(),
  });

  // --- drawing ---------------------------------------------------------------------------------

  /** @type {number | null} */
  let frame = null;
  function requestRender() {
    if (frame === null) frame = requestAnimationFrame(renderNow);
  }

  function renderNow() {
    if (frame !== null) cancelAnimationFrame(frame);
    frame = null;
    if (!match(model)) return;
    const shown = shownBoard(model);
    board.set(boardView(model, shown, t));
    panels.render(model, shown);
    parts.status.textContent = statusLines(model, t).join(" ");
    parts.alert.textContent = model.message ? model.message.text : "";
    parts.alert.hidden = !model.message;
    actions.render(model);
    const side = viewerSide(model);
    conditional.render(model, side === null ? "" : nameOf(model, 1 - side));
    result.render(model);
  }

  // --- talking to the server -------------------------------------------------------------------

  function resetPlay() {
    model.chosen = [];
    model.options = [];
    model.optionsFor = null;
    model.selected = null;
  }

  /**
   * Show `next`. `own` is the answer to this page's own action; any other new
   * state that arrives while the player had steps built means the turn was played
   * elsewhere (another tab, another device): the board says so instead of
   * silently dropping their steps.
   * @param {RoomState} next
   * @param {string | null} etag
   * @param {{own?: boolean}} [options]
   */
  function takeState(next, etag, { own = false } = {}) {
    const old = model.state;
    if (overtaken(old, model.etag, next, etag)) return; // an answer overtaken by a newer one
    // Other parts of the page (the players' messages, static/js/talk.js) follow the state too.
    document.dispatchEvent(new CustomEvent("mesa:state", { detail: next }));
    if (!onTable(next)) {
      window.location.reload(); // no board to show: let the page say why
      return;
    }
    const moved = !old || !old.match
      || old.version !== next.version || old.match.number !== next.match.number;
    // Steps built here and dropped by a move made elsewhere are said to be lost; not
    // while this board's own action is on its way (model.busy): the poll may bring
    // the move before its answer does, and a move elsewhere gets the action a 409.
    const lost = moved && !own && !model.busy && model.chosen.length > 0;
    model.state = next;
    if (etag) model.etag = etag;
    if (moved) {
      resetPlay();
      model.message = lost ? { text: t("stale_tab"), alert: true } : null;
    }
    requestRender();
    if (myMove(model)) loadOptions();
    lookForAnalysis();
  }

  // A finished game's analysis runs on a worker and changes no version, so no held
  // poll answers when it is done: look with a plain request now and then meanwhile.
  // Slower and slower, so a board left open while no worker runs costs little.
  /** @type {number | null} */
  let analysisTimer = null;
  let analysisDelay = ANALYSIS_LOOK_MS;
  function lookForAnalysis() {
    const m = match(model);
    // A quick first pass shown: its full analysis follows, keep looking for it too.
    const waiting = m && (m.analysis || []).some((line) => line.quick || line.status === "pending" || line.status === "running");
    if (!waiting) analysisDelay = ANALYSIS_LOOK_MS;
    if (!waiting || analysisTimer !== null) return;
    analysisTimer = window.setTimeout(async () => {
      analysisTimer = null;
      analysisDelay = Math.min(analysisDelay * 1.5, ANALYSIS_LOOK_MAX_MS);
      try {
        await refresh();
      } catch {
        // offline for now: the next state brings it
      }
      lookForAnalysis();
    }, analysisDelay);
  }

  /**
   * Fetch the state now, or with `wait` hold the request until the room moves (long polling).
   * @param {{wait?: boolean}} [options]
   */
  async function refresh({ wait = false } = {}) {
    const answer = await api.state(model.etag, wait ? model.state.version : null);
    if (!answer.state) return false;
    const changed = !model.state || answer.state.version !== model.state.version;
    takeState(answer.state, answer.etag);
    return changed;
  }

  async function loadOptions() {
    const key = optionsKey(model);
    if (model.optionsFor === key) return;
    model.optionsFor = key;
    model.loading = true;
    board.set({ busy: true });
    try {
      const answer = await api.steps(takenParam(taken(model)));
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

  /**
   * A word typed in the room's message box (templates/games/_talk.html) goes with the play.
   * @param {ActionName} action
   */
  function wordBox(action) {
    const box = find(document, "#talk-text[data-with-play]", HTMLInputElement);
    return action === "play" && box && box.value.trim() ? box : null;
  }

  // A written answer changed again while the last change is on its way is not
  // dropped: the newest one goes once the server has answered the first.
  /** @type {Record<string, unknown> | null} */
  let queuedAnswer = null;

  /**
   * Send `action` with `body` and the version the board shows; show the answer.
   * @param {ActionName} action
   * @param {Record<string, unknown>} [body]
   */
  async function act(action, body = {}) {
    if (model.busy) {
      if (action === "cond_answer") queuedAnswer = body;
      return;
    }
    model.busy = true;
    model.message = null;
    requestRender();
    const sent = model.state.version;
    try {
      const box = wordBox(action);
      const word = box ? { message: box.value } : {};
      const answer = await api.act(action, { version: sent, ...body, ...word });
      if (box) box.value = "";
      takeState(answer.state, answer.etag, { own: true });
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
      } else if (error instanceof ApiError && error.code === "http_error" && error.status >= 500) {
        // The front's own error page (nginx's 502 or 504: the process died or was
        // slow), not the site's words: the move may have been kept. Read the state
        // (unless the long poll brought it already): when it moved on from the
        // version sent, the move is there and nothing failed.
        try {
          if (model.state.version === sent) await refresh();
        } catch {
          // no answer either: said below
        }
        if (model.state.version === sent) showError(error);
        poll.hurry();
      } else if (error instanceof ApiError && error.status === 503) {
        // The database was away: the move may have been kept (the commit's answer
        // was lost). Read the state again, now and on the next polls, rather than
        // say it failed; the server's words say so.
        showError(error);
        poll.hurry();
      } else {
        showError(error);
      }
    } finally {
      model.busy = false;
      requestRender();
      if (queuedAnswer !== null) {
        const next = queuedAnswer;
        queuedAnswer = null;
        act("cond_answer", next);
      }
    }
  }

  /** @param {unknown} error */
  function showError(error) {
    // A front's error page has no words of the site's: "no connection" says enough.
    const said = error instanceof ApiError && error.code !== "http_error";
    const text = said ? error.message : t("offline");
    model.message = { text, alert: true };
    requestRender();
  }

  // --- building a play -------------------------------------------------------------------------

  // Nothing is taken while an action or the next options are on their way.
  function ready() {
    return !model.busy && !model.loading;
  }

  /** @param {SpotKey} key */
  function pickSpot(key) {
    if (!ready() || !myMove(model)) return;
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

  /** @param {StepOption} option */
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
    if (turnComplete(model)) act("play", { play: taken(model) });
  }

  // --- start -----------------------------------------------------------------------------------

  renderNow();
  // The board's only poller. Where the page offers the room's channel, nginx holds
  // the wait (no server memory for a waiting board); else the state request does.
  const longPoll = () => refresh({ wait: true });
  // After a message naming a newer version, the read is a ?wait= from the board's
  // own: the live server answers it at once with the state it read once for all
  // the room's boards, instead of a read each through the site's server.
  /** @param {number | null} news */
  const read = (news) => refresh({ wait: news !== null && news > model.state.version });
  const check = config.channelUrl
    ? channelCheck(roomChannel(config.channelUrl, { since: config.channelSince }), { refresh: read, longPoll })
    : longPoll;
  poll = livePoll(check);
  lookForAnalysis();
  if (myMove(model)) loadOptions();
  window.setInterval(requestRender, 60000); // "desde hace 5 minutos" moves on
}
