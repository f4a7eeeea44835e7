// Entry module of the room page: share buttons and live updates.
import { reloadOrNotify, watchRoom } from "./poll.js";
import { wireShareButtons } from "./share.js";
import { fillTimeZones } from "./zone.js";
import { byId, readJson } from "./board/dom.js";

// What the server wrote into the page (templates/games/room.html).
const config = /** @type {{stateUrl: string, version: number}} */ (readJson("room-config"));
wireShareButtons();
watchRoom({
  stateUrl: config.stateUrl,
  version: config.version,
  onChange: reloadOrNotify(byId("stale-notice", HTMLElement)),
});
fillTimeZones();
