// The players' messages on the room page (templates/games/_talk.html): the page
// renders them, and this keeps the list current from each new state the board
// receives (the "mesa:state" event of board/controller.js). Text only, never
// HTML: a message is data, whatever it contains.
/** @import { MessageLine, RoomState } from "./types.js" */
import { byId, find } from "./board/dom.js";

const panel = byId("talk", HTMLElement);
const list = panel ? find(panel, ".talk-lines", HTMLElement) : null;

/**
 * @param {MessageLine} message
 * @param {string} you  how the list names the reader
 */
function line(message, you) {
  const item = document.createElement("li");
  item.className = message.mine ? "mine" : "theirs";
  const who = document.createElement("strong");
  who.textContent = `${message.mine ? you : message.nickname}:`;
  item.append(who, ` ${message.text}`);
  return item;
}

if (panel && list) {
  // With the interactive board, a word typed here goes with the next play (board/controller.js).
  const help = document.getElementById("talk-help");
  if (help && document.getElementById("board-app")) help.hidden = false;
  const you = panel.dataset.you || "";
  const empty = panel.dataset.empty || "";
  document.addEventListener("mesa:state", (event) => {
    const state = event instanceof CustomEvent ? /** @type {RoomState | null} */ (event.detail) : null;
    const talk = state && state.talk;
    if (!talk) return;
    const items = talk.messages.map((message) => line(message, you));
    if (items.length === 0) {
      const item = document.createElement("li");
      item.className = "muted";
      item.textContent = empty;
      items.push(item);
    }
    list.replaceChildren(...items);
  });
}
