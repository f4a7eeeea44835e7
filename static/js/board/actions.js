// The buttons around the board: the prompt (answers the viewer owes: the cube,
// a resignation, the next game, an absence, a rematch) and the controls (undo,
// finish, resign, flip, the home-board setting). They show what the server
// allows and hand each press to the controller; none decides a rule.
/** @import { ActionName, Model, Texts } from "../types.js" */
/** @import { createDialogs } from "./dialogs.js" */
import { h } from "./dom.js";
import { allowed, isSpectator, match, myMove, opponentName, turnComplete, viewerSide } from "./table.js";

/**
 * The controller's handlers of the buttons, the dialogs' among them.
 * @typedef {ReturnType<typeof createDialogs> & {
 *   act: (action: ActionName, body?: Record<string, unknown>) => void,
 *   undo: () => void,
 *   finish: () => void,
 *   flip: () => void,
 *   homeLeft: (checked: boolean) => void,
 * }} ActionHandlers
 */

/** @typedef {{style?: string | null, disabled?: boolean, id?: string | null}} ButtonOptions */

/**
 * `nodes` {prompt, controls}; `texts` from createTexts; `on` the controller's
 * handlers: act(action), undo(), finish(), flip(), homeLeft(checked), and the
 * dialogs' answerDouble(kind), acceptResignation(), claimAbsence(), resign(), forfeit().
 * @param {{prompt: HTMLElement, controls: HTMLElement}} nodes
 * @param {Texts} texts
 * @param {ActionHandlers} on
 */
export function createActions(nodes, { t, moment }, on) {
  /**
   * @param {Model} model
   * @param {string} label
   * @param {() => void} onclick
   * @param {ButtonOptions} [options]
   */
  function button(model, label, onclick, { style = null, disabled = false, id = null } = {}) {
    return h("button", {
      type: "button", class: style, disabled: disabled || model.busy, id, text: label, onclick,
    });
  }

  /** @param {Model} model */
  function renderPrompt(model) {
    const m = match(model);
    /** @param {ActionName} action */
    const may = (action) => allowed(model, action);
    const opponent = () => opponentName(model);
    /** @type {HTMLButtonElement[]} */
    const buttons = [];
    /** @type {string[]} */
    const notes = [];
    /** @type {(label: string, onclick: () => void, options?: ButtonOptions) => void} */
    const add = (label, onclick, options) => {
      buttons.push(button(model, label, onclick, options));
    };
    if (may("take")) add(t("take"), () => on.answerDouble("take"));
    if (may("beaver")) add(t("beaver"), () => on.answerDouble("beaver"), { style: "secondary" });
    if (may("drop")) add(t("drop"), () => on.answerDouble("drop"), { style: "danger" });
    if (may("resign_accept")) add(t("resign_accept"), on.acceptResignation);
    if (may("resign_decline")) add(t("resign_decline"), () => on.act("resign_decline"), { style: "secondary" });
    if (may("next_game")) add(t("next_game"), () => on.act("next_game"));
    if (may("stop")) add(t("stop"), () => on.act("stop"), { style: "secondary" });
    if (may("claim_absence")) {
      // The room's days per move: two unless a tournament, a challenge or its host chose others.
      const days = model.state.room.days_per_move;
      notes.push(days && days !== 2 ? t("absence_now_days", { name: opponent(), days }) : t("absence_now", { name: opponent() }));
      add(t("claim_absence"), on.claimAbsence, { style: "danger" });
      if (may("keep_waiting")) add(t("keep_waiting"), () => on.act("keep_waiting"), { style: "secondary" });
    } else if (m.absence && !m.absence.can_claim && m.absence.show_deadline && m.absence.claimable_at) {
      // The server decides when the wait is long enough to mention the deadline.
      notes.push(t("absence_later", { name: opponent(), when: moment(m.absence.claimable_at) }));
    }
    if (may("rematch_offer")) add(t("rematch_offer"), () => on.act("rematch_offer"));
    if (may("rematch_accept")) {
      notes.push(t("rematch_offered_you", { name: opponent() }));
      add(t("rematch_accept"), () => on.act("rematch_accept"));
    }
    if (m.status === "finished" && m.rematch_offered_by !== null && !may("rematch_accept")) {
      const offering = model.state.seats.find((s) => s.number === m.rematch_offered_by);
      notes.push(offering && offering.is_you ? t("rematch_waiting")
        : t("rematch_offered", { name: offering ? offering.nickname : "?" }));
    }
    // replaceChildren writes a null out as the word "null": leave the empty row out instead.
    nodes.prompt.replaceChildren(
      ...notes.map((note) => h("p", { text: note })),
      ...(buttons.length ? [h("div", { class: "actions" }, buttons)] : []),
    );
    nodes.prompt.hidden = !notes.length && !buttons.length;
  }

  /** @param {Model} model */
  function renderControls(model) {
    const m = match(model);
    /** @type {HTMLElement[]} */
    const controls = [];
    /** @type {(label: string, onclick: () => void, options?: ButtonOptions) => void} */
    const add = (label, onclick, options) => {
      controls.push(button(model, label, onclick, options));
    };
    if (myMove(model)) {
      add(t("undo"), on.undo, { style: "secondary", disabled: !model.chosen.length, id: "board-undo" });
      add(t("finish"), on.finish, { disabled: !turnComplete(model), id: "board-finish" });
    }
    // Each button does what it says: off your turn only "Abandonar" is possible, and a
    // button named "Rendir la partida…" must not open the dialog that gives up the match.
    if (allowed(model, "resign_offer")) add(t("resign"), on.resign, { style: "secondary quiet", id: "board-resign" });
    if (allowed(model, "forfeit")) add(t("forfeit"), on.forfeit, { style: "secondary quiet", id: "board-forfeit" });
    if (m.resign_declined && m.turn === viewerSide(model) && !allowed(model, "resign_offer") && m.status !== "finished") {
      // The button is gone for the rest of this turn: say why rather than let it vanish.
      controls.push(h("p", { class: "board-note", id: "board-resign-note", text: t("resign_declined_note") }));
    }
    if (isSpectator(model)) add(t("flip"), on.flip, { style: "secondary", id: "board-flip" });
    const homeLeft = h("input", {
      type: "checkbox", id: "board-home-left", checked: model.homeLeft,
      onchange: (/** @type {Event} */ event) => {
        if (event.currentTarget instanceof HTMLInputElement) on.homeLeft(event.currentTarget.checked);
      },
    });
    controls.push(h("label", { class: "setting" }, [homeLeft, ` ${t("home_left")}`]));
    // Keep the focus on a button that survives the redraw.
    const active = document.activeElement;
    const focused = active && nodes.controls.contains(active) ? active.id : null;
    nodes.controls.replaceChildren(...controls);
    if (focused) document.getElementById(focused)?.focus();
  }

  return {
    /** @param {Model} model */
    render(model) {
      renderPrompt(model);
      renderControls(model);
    },
  };
}
