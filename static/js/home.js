// Home page: show only the options of the chosen format. Without this
// module every option stays visible and the server ignores the ones that do
// not belong to the format, so nothing depends on it.

const form = document.querySelector("form.new-room");
if (form) {
  const groups = form.querySelectorAll(".format-options[data-format]");
  const update = () => {
    const chosen = form.querySelector('input[name="format"]:checked');
    for (const group of groups) {
      group.hidden = !chosen || group.dataset.format !== chosen.value;
    }
  };
  form.addEventListener("change", (event) => {
    if (event.target.name === "format") update();
  });
  update();
}
