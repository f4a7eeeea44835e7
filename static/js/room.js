// Entry module of the room page: share buttons and live updates.
import { reloadOrNotify, watchRoom } from "./poll.js";
import { wireShareButtons } from "./share.js";
import { fillTimeZones } from "./zone.js";

const config = JSON.parse(document.getElementById("room-config").textContent);
wireShareButtons();
watchRoom({
  stateUrl: config.stateUrl,
  version: config.version,
  onChange: reloadOrNotify(document.getElementById("stale-notice")),
});
fillTimeZones();
