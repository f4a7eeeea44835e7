// Home page: show only the options of the chosen format. Without this
// module every option stays visible and the server ignores the ones that do
// not belong to the format, so nothing depends on it.
import { find, findAll } from "./board/dom.js";
import { fillTimeZones } from "./zone.js";

const form = find(document, "form.new-room", HTMLFormElement);
if (form) {
  const groups = findAll(form, ".format-options[data-format]", HTMLElement);
  const update = () => {
    const chosen = find(form, 'input[name="format"]:checked', HTMLInputElement);
    for (const group of groups) {
      group.hidden = !chosen || group.dataset.format !== chosen.value;
    }
  };
  // After a refused submit the errors may sit far below the top of a phone screen:
  // take the person to the first field that needs them.
  const invalid = form.querySelector(".errorlist");
  const place = invalid && invalid.closest(".field, fieldset");
  const field = place && place.querySelector("input, select");
  if (field instanceof HTMLInputElement || field instanceof HTMLSelectElement) field.focus();
  form.addEventListener("change", (event) => {
    if (event.target instanceof HTMLInputElement && event.target.name === "format") update();
  });
  update();
}
fillTimeZones();
