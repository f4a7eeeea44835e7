// Copy and share buttons for the invitation and seat links.
// <button data-copy="#input-id" data-copied="Copiado"> copies the input's value;
// <button data-share="#input-id" data-title="..." hidden> uses the share sheet when there is one.

export function wireShareButtons(root = document) {
  for (const button of root.querySelectorAll("[data-copy]")) {
    button.addEventListener("click", async () => {
      const input = root.querySelector(button.dataset.copy);
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
  for (const button of root.querySelectorAll("[data-share]")) {
    if (typeof navigator.share !== "function") continue;
    button.hidden = false;
    button.addEventListener("click", () => {
      const input = root.querySelector(button.dataset.share);
      navigator.share({ title: button.dataset.title || document.title, url: input.value }).catch(() => {});
    });
  }
}
