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
