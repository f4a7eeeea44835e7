// The panels around the board that only show things: the two player cards,
// the match info with its IDs, the history and the dice proof. Each redraws
// from the model; the history and the proof only when what they show changed.
/** @import { BotCard, GameInfo, MatchView, Model, Side, Texts, ViewerBoard } from "../types.js" */
import { proofButton } from "../dice.js";
import { h } from "./dom.js";
import { pips } from "./geometry.js";
import { historyByMove } from "./history.js";
import { pieceIcon } from "./pieces.js";
import { bottomSide, isSpectator, match, nameOf, shownPositionId } from "./table.js";

/**
 * `nodes` {top, bottom, info, history, proof, analysis}: the elements to fill;
 * `texts` from createTexts; `bot` the computer player's card ({label, style}) or
 * null; `reviewUrl(match, game)` the review page of a game.
 * render(model, board) redraws them for the checkers as shown.
 * @param {Record<"top" | "bottom" | "info" | "history" | "proof" | "analysis", HTMLElement>} nodes
 * @param {Texts} texts
 * @param {BotCard | null} bot
 * @param {(matchNumber: number, game: number) => string} reviewUrl
 */
export function createPanels(nodes, { t, since, moment, number }, bot, reviewUrl) {
  /** @type {string | null} */
  let historyKey = null;
  /** @type {string | null} */
  let proofKey = null;
  /** @type {string | null} */
  let analysisKey = null;

  /**
   * @param {Model} model
   * @param {Side} side
   * @param {ViewerBoard} board
   */
  function playerCard(model, side, board) {
    const m = match(model);
    const seat = model.state.seats.find((s) => s.side === side);
    const [bottomPips, topPips] = pips(board);
    const rows = [
      h("span", { class: "player-name" }, [
        seat ? seat.nickname : "?",
        seat && seat.is_you ? h("span", { class: "muted", text: ` (${t("you")})` }) : null,
      ]),
      h("span", { class: "player-side", text: side === 0 ? t("side_caps") : t("side_tyres") }),
      h("span", { class: "player-pips", text: t("pips", { count: side === bottomSide(model) ? bottomPips : topPips }) }),
    ];
    if (m.format === "match") {
      const needed = m.away ? m.away[side] : Math.max(0, m.length - m.score[side]);
      // Once the match is over nobody needs anything more: no "le faltan 0".
      const words = [t("score", { count: m.score[side] })];
      if (needed > 0 && m.status !== "finished") words.push(t("needed", { count: needed }));
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
      rows.push(h("span", { class: "badge turn", text: ago ? t("turn_since", { since: ago }) : t("on_turn") }));
    }
    if (seat && seat.away_until) {
      // On vacation: their clock stands still until then (the table only sees this).
      rows.push(h("span", { class: "badge vacation", text: t("away_until", { when: moment(seat.away_until) }) }));
    }
    if (seat && seat.is_bot && bot) {
      // Who you face: its strength next to the name, how it plays on a line of its own.
      rows.splice(1, 0, h("span", { class: "badge player-bot", text: bot.label }));
      rows.push(h("span", { class: "player-style muted", text: bot.style }));
    }
    return h("div", { class: `player-card${onTurn ? " on-turn" : ""}`, "data-side": side }, [
      pieceIcon(side),
      h("div", { class: "player-lines" }, rows),
    ]);
  }

  /** @param {Model} model */
  function renderInfo(model) {
    const m = match(model);
    /** @type {string[]} */
    const lines = [];
    if (m.format === "match") lines.push(t("match_to", { count: m.length }));
    else if (m.format === "session") lines.push(t("session_game", { number: m.game_number }));
    else lines.push(t("single"));
    if (m.format === "match" && m.crawford) {
      // No cube in this game at all: say so, and no "Cubo en el centro" beside it.
      lines.push(t("crawford"));
    } else if (m.format !== "single") {
      lines.push(m.cube.owner === null || m.cube.owner === undefined
        ? t("cube_centre", { value: m.cube.value })
        : t("cube_of", { value: m.cube.value, name: nameOf(model, m.cube.owner) }));
    }
    if (isSpectator(model)) lines.push(t("watching"));
    nodes.info.replaceChildren(
      ...lines.map((line) => h("p", { text: line })),
      h("p", {}, [
        `${t("position_id")} `,
        h("span", { class: "code id", id: "board-position-id", text: shownPositionId(model) }),
        // The Match ID is the match's own (score, cube, dice), not the viewer's; the title
        // holds the PositionID:MatchID pair GNU Backgammon reads, seen from the side on roll.
        ` · ${t("match_id")} `,
        h("span", { class: "code id", id: "board-match-id", title: m.gnubg_id, text: m.match_id }),
      ]),
    );
  }

  /**
   * The server writes each line (games/selectors/history.py); here they are only laid out.
   * @param {Model} model
   */
  function renderHistory(model) {
    const m = match(model);
    const games = m.games || [];
    const key = `${m.number}|${m.history.length}|${games.filter((g) => g.result).length}`;
    if (key === historyKey) return;
    historyKey = key;
    /** @type {HTMLElement[]} */
    const sections = [];
    const results = new Map(games.map((g) => [g.number, g.result]));
    for (const { game, before, moves, after, next } of historyByMove(m.history)) {
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
      sections.push(...next.map((line) => h("p", { class: "history-note", text: line })));
    }
    nodes.history.replaceChildren(h("h2", { text: t("history") }), ...sections);
    const list = nodes.history.querySelector("ol.moves:last-of-type");
    if (list) list.scrollTop = list.scrollHeight;
  }

  // The verifiable dice, Mesa's promise: each game's commitment, and once it ends its
  // seed, a button that re-derives every roll here (static/js/dice.js) and compares
  // it with the record, and the command line for the curious.
  /** @param {Model} model */
  function renderProof(model) {
    const m = match(model);
    const games = m.games || [];
    const key = `${m.number}|` + games.map((g) => `${g.number}:${g.commitment}:${g.seed || ""}:${g.rolls}`).join("|");
    if (key === proofKey) return;
    proofKey = key;
    const blocks = games.map((g) => h("div", { class: "dice-proof", "data-game": g.number }, [
      games.length > 1 ? h("h3", { text: t("game_n", { number: g.number }) }) : null,
      h("p", {}, [`${t("proof_commitment")} `, h("span", { class: "code", text: g.commitment })]),
      ...(g.seed ? revealed(m, g, g.seed) : [h("p", { text: t("proof_later") })]),
    ]));
    nodes.proof.replaceChildren(h("h2", { text: t("proof_title") }), ...blocks);
  }

  /**
   * @param {MatchView} m
   * @param {GameInfo} game
   * @param {string} seed  the game's, revealed
   */
  function revealed(m, game, seed) {
    // The record's rolls of this game, the opening roll(s) first, as the state lists them.
    /** @type {number[][]} */
    const recorded = [];
    for (const turn of m.history) {
      if (turn.game === game.number && turn.kind === "roll" && turn.dice) recorded.push(turn.dice);
    }
    const { button, verdict } = proofButton(h, { ...game, seed }, recorded, t);
    return [
      h("p", {}, [`${t("proof_seed")} `, h("span", { class: "code", text: seed })]),
      h("p", { class: "proof-actions" }, [button]),
      verdict,
      h("details", {}, [
        h("summary", { text: t("proof_curious") }),
        h("pre", { class: "code" }, [h("code", { text: `python -m games.engine.dice ${seed} ${game.rolls}` })]),
      ]),
    ];
  }

  // Each finished game's analysis, live: its review link once the game ends, the
  // PR once the worker is done; a new match (a rematch) starts with none.
  /** @param {Model} model */
  function renderAnalysis(model) {
    const m = match(model);
    const lines = m.analysis || [];
    const key = `${m.number}|` + lines.map((l) => `${l.game}:${l.status}:${l.quick}:${l.pr}`).join("|");
    if (key === analysisKey) return;
    analysisKey = key;
    nodes.analysis.hidden = lines.length === 0;
    /** @param {Side} side */
    const names = (side) => nameOf(model, side);
    const items = lines.map((line) => {
      let what;
      if (line.status === "done" || line.quick) {
        what = [0, 1].map((side) => {
          const pr = line.pr[side];
          return pr === null
            ? t("analysis_no_pr", { name: names(side) })
            : t("analysis_pr", { name: names(side), pr: number(pr, 1) });
        }).join(" · ");
        // The quick first pass's PRs, honestly labelled until the full analysis replaces them.
        if (line.quick) what += ` (${t("analysis_quick")})`;
      } else if (line.status === "pending" || line.status === "running") {
        what = t("analysing");
      } else {
        what = t("no_analysis");
      }
      return h("li", { "data-game": line.game }, [
        h("a", { href: reviewUrl(m.number, line.game), text: t("game_n", { number: line.game }) }),
        `: ${what}`,
      ]);
    });
    nodes.analysis.replaceChildren(h("h2", { text: t("analysis_title") }), h("ul", {}, items));
  }

  return {
    /**
     * @param {Model} model
     * @param {ViewerBoard} board
     */
    render(model, board) {
      const bottom = bottomSide(model);
      nodes.top.replaceChildren(playerCard(model, 1 - bottom, board));
      nodes.bottom.replaceChildren(playerCard(model, bottom, board));
      renderInfo(model);
      renderHistory(model);
      renderProof(model);
      renderAnalysis(model);
    },
  };
}
