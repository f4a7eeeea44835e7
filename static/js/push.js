// "Avísame en este dispositivo": register the service worker, ask for
// permission, subscribe with the site's public key and tell the server.
// The server decides when to push (the same moments as the email).

function keyBytes(base64url) {
  const padded = (base64url + "===".slice((base64url.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

function csrfToken() {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

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

export async function startPush(section) {
  const button = section.querySelector("#push-toggle");
  const status = section.querySelector("#push-status");
  const texts = JSON.parse(section.querySelector("#push-texts").textContent);
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    status.textContent = texts.unsupported;
    return;
  }
  const registration = await navigator.serviceWorker.register(section.dataset.worker, { scope: "/" });
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
        await post(section.dataset.unsubscribe, { endpoint: subscription.endpoint });
        await subscription.unsubscribe();
        subscription = null;
      } else {
        if ((await Notification.requestPermission()) !== "granted") {
          status.textContent = texts.denied;
          return;
        }
        subscription = await registration.pushManager.subscribe({
          userVisibleOnly: true, applicationServerKey: keyBytes(section.dataset.key),
        });
        await post(section.dataset.subscribe, subscription.toJSON());
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
