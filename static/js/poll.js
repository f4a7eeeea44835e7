// The one poller of the site: keep a page current with one request at a time,
// while the page is visible. The board (static/js/board/controller.js) asks
// with long polling; the room page (room.js, before the match starts) with
// plain polling. The server decides everything; this module only notices
// that something happened.
/** @import { RoomState } from "./types.js" */

/**
 * Keep a page current with one request at a time, while the page is visible.
 * `check()` asks the server (the board: with long polling) and resolves to true when something
 * changed. A held answer (the server waited for news) is followed by the next
 * request at once, so a move reaches the other player within a second. An answer
 * that came back at once with no news means the server would not hold it (it is
 * busy): then the board falls back to polling, quickly after something happened,
 * slower and slower after that. Nothing while hidden; at once when shown again.
 * The first look goes out after `start` milliseconds.
 * @param {() => Promise<boolean>} check
 * @param {{fast?: number, slow?: number, factor?: number, held?: number, start?: number}} [timing]
 */
export function livePoll(check, { fast = 1000, slow = 20000, factor = 1.5, held = 3000, start = 0 } = {}) {
  let delay = fast;
  /** @type {number | null} */
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

  /** @param {number} wait */
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

  schedule(start);
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

/**
 * The room page before its match: look at the state, with its ETag, and call
 * `onChange(state)` once it differs from the `version` the page was drawn from.
 * No long polling here: a room may wait days for its guest, and each held
 * request takes a server thread the boards need more.
 * @param {{stateUrl: string, version: number, onChange: (state: RoomState) => void}} room
 */
export function watchRoom({ stateUrl, version, onChange }) {
  /** @type {string | null} */
  let etag = null;
  async function check() {
    /** @type {Record<string, string>} */
    const headers = { Accept: "application/json" };
    if (etag) headers["If-None-Match"] = etag;
    const response = await fetch(stateUrl, { headers, credentials: "same-origin" });
    if (response.status !== 200) return false; // 304: nothing new
    // A 200 after a first answer means something changed for this viewer
    // (a join, a seat); the first answer is compared with the page's version.
    const changed = etag !== null;
    etag = response.headers.get("ETag");
    const state = /** @type {RoomState} */ (await response.json());
    if (!changed && state.version === version) return false;
    version = state.version;
    onChange(state);
    return true;
  }
  // Correspondence games are slow: back off gently from a look every 4 seconds.
  // A plain answer is never "held": no request goes out at once after another.
  return livePoll(check, { fast: 4000, slow: 30000, held: Infinity, start: 4000 });
}

// The default reaction: reload, unless the person is typing in a form, in
// which case offer the reload instead of throwing their input away.
/** @param {HTMLElement | null} notice */
export function reloadOrNotify(notice) {
  return () => {
    const active = document.activeElement;
    const typing = active && active.closest("form") && active.matches("input, select, textarea");
    if (typing && notice) {
      notice.hidden = false;
    } else {
      window.location.reload();
    }
  };
}
