// The JSON API, and nothing else: GET the state (with ETag), GET the legal
// steps, POST an action with the CSRF header. Errors come back as
// {error: {code, message}} in the page's language and are thrown as ApiError.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code);
    this.status = status;
    this.code = code;
  }
}

function csrfToken() {
  const cookie = document.cookie.split(";").map((part) => part.trim())
    .find((part) => part.startsWith("csrftoken="));
  if (cookie) return decodeURIComponent(cookie.slice("csrftoken=".length));
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

async function readJson(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const error = body && body.error ? body.error : {};
    throw new ApiError(response.status, error.code || "http_error", error.message);
  }
  return body;
}

export function createApi({ stateUrl, stepsUrl, actionUrl }) {
  return {
    /**
     * The state, or null when it did not change since `etag` (304). With `wait` (the
     * version the board has) the server holds the answer until the room moves past it,
     * up to about 25 seconds: long polling.
     */
    async state(etag, wait = null) {
      const headers = { Accept: "application/json" };
      if (etag) headers["If-None-Match"] = etag;
      const url = wait === null ? stateUrl : `${stateUrl}?wait=${encodeURIComponent(wait)}`;
      const response = await fetch(url, { headers, credentials: "same-origin", cache: "no-store" });
      if (response.status === 304) return { state: null, etag };
      const state = await readJson(response);
      return { state, etag: response.headers.get("ETag") };
    },

    /** The server's legal next steps after `taken` ("24-18,18-13"). */
    async steps(taken) {
      const url = `${stepsUrl}?taken=${encodeURIComponent(taken)}`;
      const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin", cache: "no-store" });
      return readJson(response);
    },

    /** POST one action; the answer is the fresh state. */
    async act(action, body) {
      const response = await fetch(actionUrl.replace("__action__", action), {
        method: "POST",
        credentials: "same-origin",
        headers: {
          Accept: "application/json",
          "Content-Type": "application/json",
          "X-CSRFToken": csrfToken(),
        },
        body: JSON.stringify(body),
      });
      const state = await readJson(response);
      return { state, etag: response.headers.get("ETag") };
    },
  };
}

/**
 * Keep the board current with one request at a time, while the page is visible.
 * `check()` asks the server with long polling and resolves to true when something
 * changed. A held answer (the server waited for news) is followed by the next
 * request at once, so a move reaches the other player within a second. An answer
 * that came back at once with no news means the server would not hold it (it is
 * busy): then the board falls back to polling, quickly after something happened,
 * slower and slower after that. Nothing while hidden; at once when shown again.
 */
export function livePoll(check, { fast = 1000, slow = 20000, factor = 1.5, held = 3000 } = {}) {
  let delay = fast;
  let timer = null;
  let running = false;

  async function tick() {
    timer = null;
    if (running) return;
    running = true;
    const started = Date.now();
    let next;
    try {
      const changed = await check();
      if (changed || Date.now() - started >= held) {
        delay = fast;
        next = 0;
      } else {
        delay = Math.min(delay * factor, slow);
        next = delay;
      }
    } catch {
      delay = slow; // offline or the server is away: try again later
      next = delay;
    }
    running = false;
    schedule(next);
  }

  function schedule(wait) {
    if (timer === null && !running && document.visibilityState === "visible") {
      timer = window.setTimeout(tick, wait);
    }
  }

  document.addEventListener("visibilitychange", () => {
    if (timer !== null) window.clearTimeout(timer);
    timer = null;
    if (document.visibilityState === "visible") {
      delay = fast;
      tick();
    }
  });

  schedule(0);
  return {
    /** Something just happened here: look again soon (a held request already will). */
    hurry() {
      delay = fast;
      if (timer !== null) window.clearTimeout(timer);
      timer = null;
      schedule(0);
    },
  };
}
