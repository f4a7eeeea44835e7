// Small helpers for the HTML around the board: elements, confirmations, settings.

/** document.createElement with attributes ("text" sets the text, "on…" adds a listener). */
export function h(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of [].concat(children)) if (child) node.append(child);
  return node;
}

/**
 * A modal confirmation in a <dialog>: confirm(question, yesLabel, {danger, extra})
 * resolves true on yes, false on cancel or Escape. `cancelLabel` names the no.
 */
export function createConfirm(cancelLabel) {
  const dialog = h("dialog", { class: "board-dialog", "aria-labelledby": "board-dialog-text" });
  document.body.append(dialog);
  return function confirm(question, yesLabel, { danger = false, extra = null } = {}) {
    return new Promise((resolve) => {
      const yes = h("button", { type: "button", class: danger ? "danger" : null, text: yesLabel });
      const no = h("button", { type: "button", class: "secondary", text: cancelLabel });
      dialog.replaceChildren(
        ...[h("p", { id: "board-dialog-text", text: question }), extra, h("div", { class: "actions" }, [yes, no])]
          .filter(Boolean),
      );
      const close = (answer) => {
        dialog.close();
        resolve(answer);
      };
      yes.addEventListener("click", () => close(true));
      no.addEventListener("click", () => close(false));
      dialog.oncancel = () => resolve(false); // Escape closes the dialog: a "no"
      dialog.showModal();
      no.focus(); // the safe answer is the one under the finger
    });
  };
}

// The board's settings live in localStorage; a browser that refuses storage
// simply forgets them when the page closes.
export function stored(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function store(key, value) {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // nothing to do: the setting lasts until the page closes
  }
}
