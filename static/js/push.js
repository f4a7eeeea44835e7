// "Avísame en este dispositivo": register the service worker, ask for
// permission, subscribe with the site's public key and tell the server.
// The server decides when to push (the same moments as the email).
import { find, readJson } from "./board/dom.js";

/** @param {string} base64url */
function keyBytes(base64url) {
  const padded = (base64url + "===".slice((base64url.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

function csrfToken() {
  const input = find(document, "input[name=csrfmiddlewaretoken]", HTMLInputElement);
  return input ? input.value : "";
}

/**
 * @param {string} url
 * @param {object} body
 * @returns {Promise<unknown>}
 */
async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.json();
}

/**
 * The button's words (games/web/push.py hands them to templates/games/my_rooms.html).
 * @typedef {Record<"unsupported" | "on" | "off" | "subscribed" | "denied" | "failed", string>} PushTexts
 */

/**
 * The button in `section`, whose data-* attributes name the worker, the key and the endpoints.
 * @param {HTMLElement} section
 */
export async function startPush(section) {
  const button = find(section, "#push-toggle", HTMLButtonElement);
  const status = find(section, "#push-status", HTMLElement);
  if (!button || !status) return;
  const texts = /** @type {PushTexts} */ (readJson("push-texts"));
  const { worker = "", key = "", subscribe = "", unsubscribe = "" } = section.dataset;
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    status.textContent = texts.unsupported;
    return;
  }
  const registration = await navigator.serviceWorker.register(worker, { scope: "/" });
  let subscription = await registration.pushManager.getSubscription();
  const show = () => {
    button.textContent = subscription ? texts.off : texts.on;
    button.setAttribute("aria-pressed", subscription ? "true" : "false");
    status.textContent = subscription ? texts.subscribed : "";
  };
  button.hidden = false;
  show();
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      if (subscription) {
        await post(unsubscribe, { endpoint: subscription.endpoint });
        await subscription.unsubscribe();
        subscription = null;
      } else {
        if ((await Notification.requestPermission()) !== "granted") {
          status.textContent = texts.denied;
          return;
        }
        subscription = await registration.pushManager.subscribe({
          userVisibleOnly: true, applicationServerKey: keyBytes(key),
        });
        await post(subscribe, subscription.toJSON());
      }
      show();
    } catch {
      status.textContent = texts.failed;
    } finally {
      button.disabled = false;
    }
  });
}

const section = document.getElementById("push");
if (section) startPush(section);
