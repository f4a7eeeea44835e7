// Entry module of the room page when a match is on the table: read what the
// page hands over as JSON and start the controller (controller.js), which
// mounts the SVG board, its panels and the history, and keeps them current.
/** @import { BoardConfig, BotCard, RoomState } from "../types.js" */
/** @import { Strings } from "./texts.js" */
import { startController } from "./controller.js";
import { byId, readJson } from "./dom.js";
import { onTable } from "./table.js";
import { createTexts } from "./texts.js";
import { wireShareButtons } from "../share.js";

// What the server wrote into the page (templates/games/_board_app.html): its shapes are the API's.
const app = byId("board-app", HTMLElement);
const config = /** @type {BoardConfig | null} */ (readJson("board-config"));
const state = /** @type {RoomState | null} */ (readJson("board-state"));

if (app && config && state && onTable(state)) {
  // The words come translated from templates/games/_board_strings.html.
  const strings = /** @type {Strings} */ ({ ...readJson("board-strings") ?? {}, ...readJson("board-plurals") ?? {} });
  const texts = createTexts(strings, document.documentElement.lang || "es");
  startController(app, { state, config, texts, bot: /** @type {BotCard | null} */ (readJson("board-bot")) });
}
wireShareButtons();
