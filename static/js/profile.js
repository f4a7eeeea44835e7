// The profile page: a profile without a time zone is offered the browser's own.
import { fillTimeZones } from "./zone.js";

fillTimeZones();
