// Copy and share buttons for the invitation and seat links.
// <button data-copy="#input-id" data-copied="Copiado"> copies the input's value;
// <button data-share="#input-id" data-title="..." hidden> uses the share sheet when there is one.
import { find, findAll } from "./board/dom.js";

/** @param {ParentNode} [root] */
export function wireShareButtons(root = document) {
  for (const button of findAll(root, "[data-copy]", HTMLButtonElement)) {
    const input = button.dataset.copy ? find(root, button.dataset.copy, HTMLInputElement) : null;
    if (!input) continue;
    button.addEventListener("click", async () => {
      const original = button.textContent;
      try {
        await navigator.clipboard.writeText(input.value);
      } catch {
        input.select(); // no clipboard permission: leave it selected to copy by hand
        return;
      }
      button.textContent = button.dataset.copied || original;
      window.setTimeout(() => { button.textContent = original; }, 2000);
    });
  }
  for (const button of findAll(root, "[data-share]", HTMLButtonElement)) {
    if (typeof navigator.share !== "function") continue;
    const input = button.dataset.share ? find(root, button.dataset.share, HTMLInputElement) : null;
    if (!input) continue;
    button.hidden = false;
    button.addEventListener("click", () => {
      navigator.share({ title: button.dataset.title || document.title, url: input.value }).catch(() => {});
    });
  }
}
