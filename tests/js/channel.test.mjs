// The board's wait on its room's nchan channel (channel.js): run with `node --test tests/js`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { channelCheck, pulseVersion, roomChannel } from "../../static/js/channel.js";

const URL = "/live/rooms/abc123";
const FIRST_ID = { "Last-Modified": "Tue, 04 Mar 2025 10:00:00 GMT", Etag: "0" };
const SECOND_ID = { "Last-Modified": "Tue, 04 Mar 2025 10:00:07 GMT", Etag: "2" };

/** A clock the test moves by hand. */
function clock(start = 1000000) {
  let time = start;
  return { now: () => time, pass: (ms) => { time += ms; } };
}

/**
 * A fetch that answers from `answers` in order (a Response, an Error to reject
 * with, or a function of the clock), and records what it was asked.
 */
function fakeFetch(answers) {
  const asked = [];
  async function fetch(url, init) {
    asked.push({ url, init, headers: { ...init.headers } });
    const answer = answers.shift();
    if (answer === undefined) throw new Error("asked once too often");
    if (answer instanceof Error) throw answer;
    return typeof answer === "function" ? answer() : answer;
  }
  return { fetch, asked };
}

const message = (id, body = "12:3:1:0:45") => new Response(body, { status: 200, headers: id });
const timeout = () => new Response(null, { status: 408 });
// 304 is a null-body status: no body for it.
const status = (code) => new Response(code === 304 ? null : "no", { status: code });

test("the first subscribe sends no id; each one after a message sends that message's id back", async () => {
  const { fetch, asked } = fakeFetch([message(FIRST_ID), message(SECOND_ID), timeout()]);
  const channel = roomChannel(URL, { fetch, now: clock().now });
  assert.equal(await channel.next(), "message");
  assert.equal(await channel.next(), "message");
  assert.equal(await channel.next(), "quiet");
  assert.deepEqual(asked.map((a) => a.url), [URL, URL, URL]);
  assert.deepEqual(asked[0].headers, { Accept: "text/plain" });
  assert.deepEqual(asked[1].headers, {
    Accept: "text/plain",
    "If-Modified-Since": "Tue, 04 Mar 2025 10:00:00 GMT",
    "If-None-Match": "0",
  });
  assert.equal(asked[2].headers["If-Modified-Since"], "Tue, 04 Mar 2025 10:00:07 GMT");
  assert.equal(asked[2].headers["If-None-Match"], "2");
  assert.equal(asked[0].init.credentials, "same-origin");
  assert.equal(asked[0].init.cache, "no-store");
});

test("the first subscribe starts from the page's own time when it has one", async () => {
  const since = "Tue, 04 Mar 2025 09:59:59 GMT";
  const { fetch, asked } = fakeFetch([timeout(), message(FIRST_ID)]);
  const channel = roomChannel(URL, { fetch, now: clock().now, since });
  assert.equal(await channel.next(), "quiet");
  assert.equal(await channel.next(), "message");
  // Held from the page's time: only a message published after it answers at once.
  assert.deepEqual(asked[0].headers, { Accept: "text/plain", "If-Modified-Since": since, "If-None-Match": "0" });
  assert.equal(asked[1].headers["If-Modified-Since"], since);
  assert.equal(asked[1].headers["If-None-Match"], "0");
});

test("a quiet answer (408 or 304) keeps the id for the next subscribe", async () => {
  const { fetch, asked } = fakeFetch([message(FIRST_ID), timeout(), status(304), timeout()]);
  const channel = roomChannel(URL, { fetch, now: clock().now });
  assert.equal(await channel.next(), "message");
  assert.equal(await channel.next(), "quiet");
  assert.equal(await channel.next(), "quiet");
  assert.equal(await channel.next(), "quiet");
  for (const { headers } of asked.slice(1)) {
    assert.equal(headers["If-Modified-Since"], FIRST_ID["Last-Modified"]);
    assert.equal(headers["If-None-Match"], FIRST_ID.Etag);
  }
});

for (const [name, failure] of [
  ["a 502", () => status(502)],
  ["a 403", () => status(403)],
  ["a 404", () => status(404)],
  ["a rejected fetch", () => new TypeError("Failed to fetch")],
]) {
  test(`${name} breaks the channel: the id is forgotten, and it is not asked again for 60 s`, async () => {
    const time = clock();
    const { fetch, asked } = fakeFetch([message(FIRST_ID), failure(), message(SECOND_ID)]);
    const channel = roomChannel(URL, { fetch, now: time.now });
    assert.equal(await channel.next(), "message");
    assert.equal(await channel.next(), "broken");
    assert.equal(asked.length, 2);
    time.pass(59999);
    assert.equal(await channel.next(), "broken");
    assert.equal(asked.length, 2, "not asked while it rests");
    time.pass(1);
    assert.equal(await channel.next(), "message");
    assert.equal(asked.length, 3);
    assert.deepEqual(asked[2].headers, { Accept: "text/plain" }, "the old id is forgotten");
  });
}

test("a 200 that gives no newer id breaks the channel instead of coming back at once forever", async () => {
  const { fetch } = fakeFetch([message(FIRST_ID), message(FIRST_ID), message({})]);
  const time = clock();
  const channel = roomChannel(URL, { fetch, now: time.now });
  assert.equal(await channel.next(), "message");
  assert.equal(await channel.next(), "broken", "the id just sent back");
  time.pass(60000);
  assert.equal(await channel.next(), "broken", "no id at all");
});

test("a pulse's version is its first number; anything else names none", () => {
  assert.equal(pulseVersion("12:3:1:0:45"), 12);
  assert.equal(pulseVersion("7:0:2:0"), 7); // published by the release before the serial
  assert.equal(pulseVersion("0:0:1:0:0\n"), 0);
  for (const text of ["", "hola", "12", "12:3:1", "-1:0:1:0:0", "12:3:1:0:45:9", "1.5:0:1:0:0"]) {
    assert.equal(pulseVersion(text), null, text);
  }
});

test("news() is the version the last message named", async () => {
  const { fetch } = fakeFetch([message(FIRST_ID, "12:3:1:0:45"), timeout(), message(SECOND_ID, "not a pulse")]);
  const channel = roomChannel(URL, { fetch, now: clock().now });
  assert.equal(channel.news(), null, "nothing heard yet");
  assert.equal(await channel.next(), "message");
  assert.equal(channel.news(), 12);
  assert.equal(await channel.next(), "quiet");
  assert.equal(await channel.next(), "message");
  assert.equal(channel.news(), null);
});

test("a message without an Etag is followed by If-Modified-Since alone", async () => {
  const { fetch, asked } = fakeFetch([message({ "Last-Modified": FIRST_ID["Last-Modified"] }), timeout()]);
  const channel = roomChannel(URL, { fetch, now: clock().now });
  assert.equal(await channel.next(), "message");
  assert.equal(await channel.next(), "quiet");
  assert.deepEqual(asked[1].headers, { Accept: "text/plain", "If-Modified-Since": FIRST_ID["Last-Modified"] });
});

// --- the board's check: channelCheck over a channel that says what the test wants ---

/**
 * A channel that hears `heard` after `ms` of the clock, and the board's two ways
 * of reading the state, counted.
 */
function board(heard, { ms = 0, changed = false, longPolled = false, news = 12 } = {}) {
  const time = clock();
  const calls = { next: 0, refresh: 0, longPoll: 0 };
  const given = []; // what each read was told the message named
  const channel = {
    async next() {
      calls.next += 1;
      time.pass(ms);
      return heard;
    },
    news: () => news,
  };
  const check = channelCheck(channel, {
    refresh: async (named) => {
      calls.refresh += 1;
      given.push(named);
      time.pass(50);
      return changed;
    },
    longPoll: async () => {
      calls.longPoll += 1;
      return longPolled;
    },
    now: time.now,
  });
  return { check, calls, given };
}

test("a message: the state is read, told the version it named, and the next subscribe goes out at once", async () => {
  for (const changed of [false, true]) {
    for (const news of [12, null]) {
      const { check, calls, given } = board("message", { ms: 10, changed, news });
      assert.equal(await check(), true);
      assert.deepEqual(calls, { next: 1, refresh: 1, longPoll: 0 });
      assert.deepEqual(given, [news]);
    }
  }
});

test("a held quiet answer: the next subscribe at once, the state read only every ten minutes", async () => {
  const { check, calls, given } = board("quiet", { ms: 90000 });
  for (let n = 1; n <= 6; n++) assert.equal(await check(), true); // 9 minutes of quiet
  assert.deepEqual(calls, { next: 6, refresh: 0, longPoll: 0 });
  assert.equal(await check(), true); // 10.5 minutes: a publish may have been lost
  assert.deepEqual(calls, { next: 7, refresh: 1, longPoll: 0 });
  assert.deepEqual(given, [null], "a quiet answer names no version");
  for (let n = 1; n <= 6; n++) await check();
  assert.deepEqual(calls, { next: 13, refresh: 1, longPoll: 0 }); // counted from that read
  assert.equal(await board("quiet", { ms: 3000 }).check(), true);
});

test("a quiet answer that came back at once: paced as a plain poll, by what the state said", async () => {
  const quiet = board("quiet", { ms: 2999 });
  assert.equal(await quiet.check(), false, "livePoll backs off");
  assert.deepEqual(quiet.calls, { next: 1, refresh: 1, longPoll: 0 });
  assert.equal(await board("quiet", { ms: 5, changed: true }).check(), true);
});

test("a broken channel: this look is the long poll, as without a channel", async () => {
  for (const longPolled of [false, true]) {
    const { check, calls } = board("broken", { longPolled });
    assert.equal(await check(), longPolled);
    assert.deepEqual(calls, { next: 1, refresh: 0, longPoll: 1 });
  }
});

test("a failing state read fails the look, so livePoll waits before the next", async () => {
  const channel = { next: async () => "message", news: () => 3 };
  const check = channelCheck(channel, {
    refresh: async () => { throw new TypeError("Failed to fetch"); },
    longPoll: async () => true,
    now: clock().now,
  });
  await assert.rejects(check(), TypeError);
});

test("composed with a real channel: the fallback while it rests, the channel again after", async () => {
  const time = clock();
  const { fetch, asked } = fakeFetch([status(502), message(FIRST_ID), () => { time.pass(90000); return timeout(); }]);
  const calls = [];
  const check = channelCheck(roomChannel(URL, { fetch, now: time.now }), {
    refresh: async (news) => { calls.push(`refresh ${news}`); return false; },
    longPoll: async () => { calls.push("longPoll"); time.pass(45000); return false; },
    now: time.now,
  });
  assert.equal(await check(), false); // 502, then the long poll's own answer
  assert.equal(await check(), false); // 45 s later: still resting
  assert.equal(asked.length, 1);
  assert.equal(await check(), true); // 90 s after the failure: the newest message, then the state
  assert.equal(await check(), true); // held 90 s: the next subscribe at once, no read
  assert.deepEqual(calls, ["longPoll", "longPoll", "refresh 12"]);
  assert.equal(asked[2].headers["If-None-Match"], "0");
});
