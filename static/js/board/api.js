// The JSON API, and nothing else: GET the state (with ETag), GET the legal
// steps, POST an action with the CSRF header. Errors come back as
// {error: {code, message}} in the page's language and are thrown as ApiError.
/** @import { ActionName, RoomState, StateAnswer, StepsAnswer } from "../types.js" */
import { find } from "./dom.js";

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} [message]  the server's words, in the page's language
   */
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
  const input = find(document, "input[name=csrfmiddlewaretoken]", HTMLInputElement);
  return input ? input.value : "";
}

/**
 * The answer's JSON, or the ApiError its {error: {code, message}} says. The
 * body's shape is the endpoint's (docs/API.md), named by the caller.
 * @param {Response} response
 * @returns {Promise<unknown>}
 */
async function readJson(response) {
  /** @type {{error?: {code?: string, message?: string}} | null} */
  let body;
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

/**
 * The board's three endpoints, from the page's URLs.
 * @param {{stateUrl: string, stepsUrl: string, actionUrl: string}} urls
 */
export function createApi({ stateUrl, stepsUrl, actionUrl }) {
  // Who this board is, as the server signed it on its last state answer: sent back
  // with a held request, so that its wake-up needs no session (games/web/live_pass.py).
  /** @type {string | null} */
  let pass = null;
  /** @param {Response} response */
  function keepPass(response) {
    const given = response.headers.get("X-Mesa-Pass");
    if (given) pass = given;
  }
  return {
    /**
     * The state, or null when it did not change since `etag` (304). With `wait` (the
     * version the board has) the server holds the answer until the room moves past it,
     * up to 45 seconds: long polling.
     * @param {string | null} etag
     * @param {number | null} [wait]
     * @returns {Promise<StateAnswer>}
     */
    async state(etag, wait = null) {
      /** @type {Record<string, string>} */
      const headers = { Accept: "application/json" };
      if (etag) headers["If-None-Match"] = etag;
      if (wait !== null && pass) headers["X-Mesa-Pass"] = pass;
      const url = wait === null ? stateUrl : `${stateUrl}?wait=${encodeURIComponent(wait)}`;
      const response = await fetch(url, { headers, credentials: "same-origin", cache: "no-store" });
      keepPass(response);
      if (response.status === 304) return { state: null, etag };
      const state = /** @type {RoomState} */ (await readJson(response));
      return { state, etag: response.headers.get("ETag") };
    },

    /**
     * The server's legal next steps after `taken` ("24-18,18-13").
     * @param {string} taken
     * @returns {Promise<StepsAnswer>}
     */
    async steps(taken) {
      const url = `${stepsUrl}?taken=${encodeURIComponent(taken)}`;
      const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin", cache: "no-store" });
      return /** @type {StepsAnswer} */ (await readJson(response));
    },

    /**
     * POST one action; the answer is the fresh state.
     * @param {ActionName} action
     * @param {Record<string, unknown>} body
     * @returns {Promise<{state: RoomState, etag: string | null}>}
     */
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
      keepPass(response);
      const state = /** @type {RoomState} */ (await readJson(response));
      return { state, etag: response.headers.get("ETag") };
    },
  };
}
