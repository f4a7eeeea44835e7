// What the viewer leaves written for the table to play: the answer to the
// opponent's next double, and the plays of the next turn when the opponent can
// no longer change it. The server says what may be written now
// (match.conditional: may_answer, may_plays...) and checks every play; this
// module only shows what is recorded and sends changes.
/** @import { ActionName, ConditionalView, Model, Texts, WrittenPlayView } from "../types.js" */
import { find, h } from "./dom.js";

/** A written play as the action cond_plays takes it: its roll and its play. @typedef {{dice: number[], play: string | WrittenPlayView["play"]}} PlayToWrite */

/**
 * The 21 rolls, higher die first, as the tables key them.
 * @type {[number, number][]}
 */
export const ROLLS = [];
for (let high = 6; high >= 1; high -= 1) {
  for (let low = high; low >= 1; low -= 1) ROLLS.push([high, low]);
}

/**
 * The answer choices to show: "" (ask me), take, drop, and beaver where allowed.
 * @param {ConditionalView} conditional
 */
export function answerChoices(conditional) {
  const choices = ["", "take", "drop"];
  if (conditional.may_beaver) choices.push("beaver");
  const current = conditional.answer || "";
  return choices.map((value) => ({ value, checked: value === current }));
}

/**
 * The table to send after writing `text` for `dice` (or clearing it with an empty text).
 * @param {WrittenPlayView[] | null} plays
 * @param {number[]} dice
 * @param {string} text
 * @returns {PlayToWrite[]}
 */
export function tableWith(plays, dice, text) {
  const others = (plays || []).filter((p) => p.dice[0] !== dice[0] || p.dice[1] !== dice[1]);
  const kept = others.map((p) => ({ dice: p.dice, play: p.play }));
  return text.trim() ? [...kept, { dice, play: text.trim() }] : kept;
}

/**
 * `node` the panel; `texts` from createTexts; `on.act(action, body)` the controller's.
 * `opponent()` names the other player.
 * @param {HTMLElement} node
 * @param {Texts} texts
 * @param {{act: (action: ActionName, body?: Record<string, unknown>) => void}} on
 */
export function createConditional(node, { t }, on) {
  /** @type {Record<string, string>} */
  const answerLabels = {
    "": "cond_ask_me", take: "cond_take", drop: "cond_drop", beaver: "cond_beaver",
  };

  /**
   * @param {Model} model
   * @param {ConditionalView} conditional
   * @param {string} name  the opponent's
   */
  function answerPart(model, conditional, name) {
    const radios = answerChoices(conditional).map(({ value, checked }) => {
      const id = `cond-answer-${value || "ask"}`;
      const input = h("input", {
        type: "radio", name: "cond-answer", id, value, checked, disabled: model.busy,
        onchange: () => on.act("cond_answer", { answer: value || null }),
      });
      return h("li", {}, [input, " ", h("label", { for: id, text: t(answerLabels[value]) })]);
    });
    return h("fieldset", { class: "cond-answer" }, [
      h("legend", { text: t("cond_if_double", { name }) }),
      h("ul", { class: "choices" }, radios),
    ]);
  }

  /**
   * @param {Model} model
   * @param {ConditionalView} conditional
   * @param {string} name  the opponent's
   */
  function playsPart(model, conditional, name) {
    /** @type {HTMLElement[]} */
    const parts = [h("p", { text: t("cond_plays_intro", { name }) })];
    const plays = conditional.plays || [];
    if (plays.length) {
      parts.push(h("ul", { class: "cond-plays", id: "cond-plays" }, plays.map((p) => h("li", {
        text: t("cond_play_line", { dice: `${p.dice[0]}-${p.dice[1]}`, play: p.notation || t("cond_no_move") }),
      }))));
      parts.push(h("button", {
        type: "button", class: "secondary", id: "cond-clear", disabled: model.busy, text: t("cond_clear"),
        onclick: () => on.act("cond_plays", { plays: [] }),
      }));
    }
    if (conditional.may_greedy) {
      parts.push(h("button", {
        type: "button", id: "cond-greedy", disabled: model.busy, text: t("cond_greedy"),
        onclick: () => on.act("cond_greedy", {}),
      }));
    }
    const select = h("select", { id: "cond-roll" }, ROLLS.map(([a, b]) => h("option", {
      value: `${a}-${b}`, text: `${a}-${b}`,
    })));
    const input = h("input", { type: "text", id: "cond-play", autocomplete: "off", placeholder: "13/7 13/8" });
    const form = h("form", {
      class: "cond-write",
      onsubmit: (event) => {
        event.preventDefault();
        const dice = select.value.split("-").map(Number);
        on.act("cond_plays", { plays: tableWith(plays, dice, input.value) });
      },
    }, [
      h("label", { for: "cond-roll", text: t("cond_roll") }), select,
      h("label", { for: "cond-play", text: t("cond_play") }), input,
      h("button", { type: "submit", class: "secondary", disabled: model.busy, text: t("cond_save") }),
    ]);
    parts.push(form);
    return h("div", { class: "cond-plays-part" }, parts);
  }

  return {
    /**
     * @param {Model} model
     * @param {string} name  the opponent's
     */
    render(model, name) {
      const m = model.state && model.state.match;
      const conditional = m && m.conditional;
      const show = conditional && (conditional.may_answer || conditional.may_plays
        || (conditional.plays && conditional.plays.length));
      if (!show) {
        node.hidden = true;
        node.replaceChildren();
        return;
      }
      // Keep the player's half-written play across redraws.
      const typing = find(node, "#cond-play", HTMLInputElement);
      const rolled = find(node, "#cond-roll", HTMLSelectElement);
      const kept = typing && rolled ? { text: typing.value, roll: rolled.value } : null;
      const active = document.activeElement;
      const focused = active && node.contains(active) ? active.id : null;
      /** @type {HTMLElement[]} */
      const parts = [h("h2", { id: "cond-title", text: t("cond_title") })];
      if (conditional.may_answer) parts.push(answerPart(model, conditional, name));
      if (conditional.may_plays || (conditional.plays && conditional.plays.length)) {
        parts.push(playsPart(model, conditional, name));
      }
      node.replaceChildren(...parts);
      node.hidden = false;
      const play = find(node, "#cond-play", HTMLInputElement);
      const roll = find(node, "#cond-roll", HTMLSelectElement);
      if (kept && play && roll) {
        play.value = kept.text;
        roll.value = kept.roll;
      }
      if (focused) document.getElementById(focused)?.focus();
    },
  };
}
