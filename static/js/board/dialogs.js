// The questions asked before an action a slip of the finger would regret:
// doubling, answering a double, resigning, abandoning, claiming an absence.
// Each resolves into one call of `act(action, body)` on yes, nothing on no.
/** @import { ActionName, Model, Texts } from "../types.js" */
import { createConfirm, h } from "./dom.js";
import { allowed, match, opponentName } from "./table.js";

/**
 * @param {Texts} texts
 * @param {Model} model
 * @param {(action: ActionName, body?: Record<string, unknown>) => void} act
 */
export function createDialogs({ t }, model, act) {
  const confirm = createConfirm(t("cancel"));

  async function offerDouble() {
    const value = match(model).cube.value * 2;
    if (await confirm(t("confirm_double", { value }), t("double_yes"))) act("double");
  }

  /** @param {"take" | "drop" | "beaver"} action */
  async function answerDouble(action) {
    const value = match(model).cube.value * 2;
    /** @type {Record<typeof action, [string, string, boolean]>} */
    const questions = {
      take: [t("confirm_take", { value }), t("take"), false],
      drop: [t("confirm_drop"), t("drop"), true],
      beaver: [t("confirm_beaver", { value: value * 2 }), t("beaver"), false],
    };
    const [question, label, danger] = questions[action];
    if (await confirm(question, label, { danger })) act(action);
  }

  async function resign() {
    // The server says what each offer is worth at the cube, and in a match the
    // score it leaves (a partida simple has one offer: the game).
    const single = match(model).format === "single";
    const offers = match(model).resign_offers || [];
    const select = h("select", { id: "resign-choice" }, offers.map(({ value, text }) => (
      h("option", { value, text }))));
    const offerable = allowed(model, "resign_offer");
    const extra = offerable && !single
      ? h("p", {}, [h("label", { for: "resign-choice", text: t("resign_as") }), " ", select])
      : null;
    if (offerable) {
      const question = single ? t("resign_question_single") : t("resign_question");
      if (await confirm(question, t("resign_offer"), { extra })) act("resign_offer", { value: Number(select.value || 1) });
    } else if (allowed(model, "forfeit")) {
      forfeit();
    }
  }

  async function forfeit() {
    const question = match(model).format === "single" ? t("confirm_forfeit_single") : t("confirm_forfeit_match");
    if (await confirm(question, t("forfeit"), { danger: true })) act("forfeit");
  }

  async function claimAbsence() {
    const opponent = opponentName(model);
    if (await confirm(t("confirm_absence", { name: opponent }), t("claim_absence"), { danger: true })) {
      act("claim_absence");
    }
  }

  async function acceptResignation() {
    if (await confirm(t("confirm_resign_accept"), t("resign_accept"))) act("resign_accept");
  }

  return { offerDouble, answerDouble, resign, forfeit, claimAbsence, acceptResignation };
}
