// The header's menu on a phone: the links and the languages fold behind one
// button so the page (the board above all) starts near the top. The CSS folds
// them only once this module has marked the header, so without a script every
// link stays in view; a desktop never shows the button (site.css).
const header = document.querySelector(".site-header");
const button = header && header.querySelector(".menu-toggle");
if (header instanceof HTMLElement && button instanceof HTMLButtonElement) {
  const menu = document.getElementById(button.getAttribute("aria-controls") || "");
  /** @param {boolean} open */
  const show = (open) => {
    header.classList.toggle("open", open);
    button.setAttribute("aria-expanded", String(open));
  };
  header.classList.add("foldable");
  button.hidden = false;
  button.addEventListener("click", () => show(button.getAttribute("aria-expanded") !== "true"));
  header.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && header.classList.contains("open")) {
      show(false);
      button.focus();
    }
  });
  // A tap elsewhere closes it, as menus do.
  document.addEventListener("click", (event) => {
    const inside = event.target instanceof Node && header.contains(event.target);
    if (header.classList.contains("open") && !inside) show(false);
  });
  if (menu) menu.addEventListener("focusout", (event) => {
    const to = event.relatedTarget;
    if (to instanceof Node && !header.contains(to)) show(false);
  });
}
