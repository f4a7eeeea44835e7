// The board's wait for news, held by the front instead of the Python server:
// an nchan long-poll subscriber on the room's channel (nginx). A message is the
// room's pulse ("version:message:number:rematch:serial", games/selectors/pulse.py):
// "the room moved, or may have", and to which version. The board then reads its
// state: as a ?wait= from its own version when the message names a newer one
// (the live server answers it at once, with the state it read once for every
// board of the room), else with a plain request (a word, a finished analysis:
// the version did not move). Where the channel does not work (no nchan, nginx
// restarted), the board long polls the state endpoint as before, and tries the
// channel again a minute later.

const REST_MS = 60000; // a broken channel is left alone this long
const HELD_MS = 3000; // a quiet answer quicker than this was not held
// A quiet board reads its state this often anyway: a publish lost on its way
// costs it at most this. Not at every quiet answer (90 s): at 10,000 boards
// those reads were 111 a second, the node's whole core (docs/LOAD.md).
const REREAD_MS = 600000;

/**
 * What one subscribe heard: a message, nothing (nchan's 408 after its timeout,
 * or a 304), or a channel that does not work here.
 * @typedef {"message" | "quiet" | "broken"} Heard
 */

/**
 * `news()`: the room's version that the last message named (null: none, or not
 * a pulse).
 * @typedef {{next: () => Promise<Heard>, news: () => number | null}} RoomChannel
 */

/**
 * The room's version in a pulse's text, or null when it is not one.
 * @param {string} text
 * @returns {number | null}
 */
export function pulseVersion(text) {
  const found = /^(\d+):\d+:\d+:\d+(?::\d+)?$/.exec(text.trim());
  return found ? Number(found[1]) : null;
}

/**
 * The room's channel at `url`. Each `next()` is one subscribe; it resolves (never
 * rejects) to what it heard. The last message's id is kept here and sent back, so
 * that nchan holds the next subscribe until a newer message. `since` (an HTTP
 * date: the server's time when it drew the board's state, less a second) is where
 * the first subscribe starts from: a message published after the board's state
 * was read is answered at once, an older one (the room's last move, minutes ago)
 * is not, so opening a board costs no second read of its state.
 * @param {string} url
 * @param {{fetch?: typeof fetch, now?: () => number, rest?: number, since?: string | null}} [options]
 * @returns {RoomChannel}
 */
export function roomChannel(url, { fetch: get = (input, init) => fetch(input, init), now = Date.now, rest = REST_MS, since = null } = {}) {
  // nchan's message id, as its last 200 gave it: Last-Modified and Etag (the first
  // message of a second is tag 0).
  /** @type {{modified: string, tag: string | null} | null} */
  let last = since ? { modified: since, tag: "0" } : null;
  let restUntil = -Infinity;
  /** @type {number | null} */
  let news = null;

  /** @returns {Heard} */
  function broken() {
    last = null; // a channel back from a failure may have lost its messages
    restUntil = now() + rest;
    return "broken";
  }

  async function next() {
    if (now() < restUntil) return "broken";
    /** @type {Record<string, string>} */
    const headers = { Accept: "text/plain" };
    if (last) {
      headers["If-Modified-Since"] = last.modified;
      if (last.tag !== null) headers["If-None-Match"] = last.tag;
    }
    /** @type {Response} */
    let response;
    let text = "";
    try {
      response = await get(url, { headers, credentials: "same-origin", cache: "no-store" });
      if (response.status === 200) text = await response.text();
    } catch {
      return broken(); // offline, or the front cut the held request
    }
    if (response.status === 408 || response.status === 304) return "quiet";
    if (response.status !== 200) return broken();
    const modified = response.headers.get("Last-Modified");
    const tag = response.headers.get("Etag");
    // A message without an id, or with the one just sent, gives no newer place to
    // wait from: subscribing again would come back at once, over and over.
    if (!modified || (last && last.modified === modified && last.tag === tag)) return broken();
    last = { modified, tag };
    news = pulseVersion(text);
    return "message";
  }

  return { next, news: () => news };
}

/**
 * The board's check for livePoll (poll.js) through `channel`: true means "ask
 * again at once". After a message the state is read with `refresh`, given the
 * version the message named (null after a quiet answer, or a message that named
 * none): a 304 when nothing changed for this viewer; after a quiet answer
 * only once `reread` has passed since the last read, which catches a publish
 * that got lost. A message is followed by the next subscribe at once (nchan
 * holds it); so is a quiet answer that was held; a quiet answer that came back
 * at once is read and paced by livePoll like a plain poll. A broken channel:
 * `longPoll` this time, as a board without a channel does.
 * @param {RoomChannel} channel
 * @param {{refresh: (news: number | null) => Promise<boolean>, longPoll: () => Promise<boolean>, now?: () => number, held?: number, reread?: number}} ways
 * @returns {() => Promise<boolean>}
 */
export function channelCheck(channel, { refresh, longPoll, now = Date.now, held = HELD_MS, reread = REREAD_MS }) {
  let read = now(); // the page came with its state
  return async () => {
    const started = now();
    const heard = await channel.next();
    if (heard === "broken") {
      read = now();
      return longPoll();
    }
    const waited = now() - started;
    if (heard === "quiet" && waited >= held && now() - read < reread) return true;
    const changed = await refresh(heard === "message" ? channel.news() : null);
    read = now();
    return heard === "message" || waited >= held || changed;
  };
}
