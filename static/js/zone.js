// The reader's time zone for the emails' deadlines: the browser knows it
// (an IANA name such as "Europe/Madrid"), the server stores it with the seat
// or the profile. Fills every empty input named time_zone on the page;
// without this module the server writes deadlines in UTC and says so.
/** @param {ParentNode} [root] */
export function fillTimeZones(root = document) {
  let zone;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch {
    return;
  }
  for (const input of root.querySelectorAll('input[name="time_zone"], select[name="time_zone"]')) {
    const field = input instanceof HTMLInputElement || input instanceof HTMLSelectElement ? input : null;
    if (field && !field.value && zone) field.value = zone;
  }
}
