// Home page: show only the options of the chosen format. Without this
// module every option stays visible and the server ignores the ones that do
// not belong to the format, so nothing depends on it.
import { fillTimeZones } from "./zone.js";

const form = document.querySelector("form.new-room");
if (form) {
  const groups = form.querySelectorAll(".format-options[data-format]");
  const update = () => {
    const chosen = form.querySelector('input[name="format"]:checked');
    for (const group of groups) {
      group.hidden = !chosen || group.dataset.format !== chosen.value;
    }
  };
  // After a refused submit the errors may sit far below the top of a phone screen:
  // take the person to the first field that needs them.
  const invalid = form.querySelector(".errorlist");
  const field = invalid && invalid.closest(".field, fieldset")?.querySelector("input, select");
  if (field) field.focus();
  form.addEventListener("change", (event) => {
    if (event.target.name === "format") update();
  });
  update();
}
fillTimeZones();
