// Entry module of the room page when a match is on the table: read what the
// page hands over as JSON and start the controller (controller.js), which
// mounts the SVG board, its panels and the history, and keeps them current.
import { startController } from "./controller.js";
import { createTexts } from "./texts.js";
import { wireShareButtons } from "../share.js";

function readJson(id) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : null;
}

const app = document.getElementById("board-app");
const config = readJson("board-config");
const state = readJson("board-state");

if (app && config && state && state.match) {
  // The words come translated from templates/games/_board_strings.html.
  const strings = { ...readJson("board-strings"), ...readJson("board-plurals") };
  const texts = createTexts(strings, document.documentElement.lang || "es");
  startController(app, { state, config, texts, bot: readJson("board-bot") });
}
wireShareButtons();
