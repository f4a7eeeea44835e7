// Small helpers for the HTML around the board: elements, confirmations, settings,
// and the page's elements found and checked for what they are.

/**
 * An attribute of h(): a value (null, undefined and false leave it out, true
 * sets it empty), the text, or an "on…" listener.
 * @typedef {string | number | boolean | null | undefined | ((event: Event) => void)} Attr
 */

/** A child of h(): null, undefined and false leave it out. @typedef {Node | string | null | undefined | false} Child */

/**
 * document.createElement with attributes ("text" sets the text, "on…" adds a listener).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, Attr>} [attrs]
 * @param {Child | Child[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = String(value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of Array.isArray(children) ? children : [children]) if (child) node.append(child);
  return node;
}

/**
 * The element `selector` finds under `root` when it is a `type` (HTMLInputElement...), else null.
 * @template {Element} T
 * @param {ParentNode} root
 * @param {string} selector
 * @param {{new (): T}} type
 * @returns {T | null}
 */
export function find(root, selector, type) {
  const node = root.querySelector(selector);
  return node instanceof type ? node : null;
}

/**
 * Every element `selector` finds under `root` that is a `type`.
 * @template {Element} T
 * @param {ParentNode} root
 * @param {string} selector
 * @param {{new (): T}} type
 * @returns {T[]}
 */
export function findAll(root, selector, type) {
  /** @type {T[]} */
  const found = [];
  for (const node of root.querySelectorAll(selector)) if (node instanceof type) found.push(node);
  return found;
}

/**
 * The page's element with this id when it is a `type`, else null.
 * @template {Element} T
 * @param {string} id
 * @param {{new (): T}} type
 * @returns {T | null}
 */
export function byId(id, type) {
  const node = document.getElementById(id);
  return node instanceof type ? node : null;
}

/**
 * The JSON a page hands over in <script type="application/json" id="…">
 * (Django's json_script), or null when the page has none. Its shape is the
 * caller's to name: the server wrote it.
 * @param {string} id
 * @returns {unknown}
 */
export function readJson(id) {
  const node = document.getElementById(id);
  return node && node.textContent ? JSON.parse(node.textContent) : null;
}

/**
 * A modal confirmation in a <dialog>: confirm(question, yesLabel, {danger, extra})
 * resolves true on yes, false on cancel or Escape. `cancelLabel` names the no.
 * @param {string} cancelLabel
 * @returns {(question: string, yesLabel: string, options?: {danger?: boolean, extra?: Node | null}) => Promise<boolean>}
 */
export function createConfirm(cancelLabel) {
  const dialog = h("dialog", { class: "board-dialog", "aria-labelledby": "board-dialog-text" });
  document.body.append(dialog);
  return function confirm(question, yesLabel, { danger = false, extra = null } = {}) {
    return new Promise((resolve) => {
      const yes = h("button", { type: "button", class: danger ? "danger" : null, text: yesLabel });
      const no = h("button", { type: "button", class: "secondary", text: cancelLabel });
      const parts = [h("p", { id: "board-dialog-text", text: question }), extra, h("div", { class: "actions" }, [yes, no])];
      dialog.replaceChildren(...parts.filter((part) => part !== null));
      /** @param {boolean} answer */
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
/** @param {string} key */
export function stored(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * @param {string} key
 * @param {string} value
 */
export function store(key, value) {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // nothing to do: the setting lasts until the page closes
  }
}
