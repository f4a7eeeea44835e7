"""One held wait: until the room moves past the board's version, or 45 s.

A waiter:

1. registers with this loop's hub (games.web.live.hub), then takes the room's
   pulse from the hub's memory (subscribed, it heard every publish since it
   read the room's key) or from its Redis key (no database); unless the key
   says the room is where the board is, one query: no key (written then from
   the database's answer: a room quiet for longer than a key lasts costs one
   query, not one a wait), a key older than the board (a lost publish), or one
   ahead of it, which the database confirms (one query for the waits that
   start from the same key together: database_word). A key ahead of the
   database is left by a timeline that a restored backup undid (the room's
   serial only grows, and every key was read from the database before
   this): forgotten, so it neither ends waits at once nor holds back the
   restored room's publishes; the database's word is remembered by the hub
   in its place;
2. answers at once when the room's version is not the board's;
3. otherwise waits for a pulse of its room on the channel (a pulse not older
   than the one it started from: a finished analysis publishes the same
   pulse, and the board's state still changed), at most 45 s, and has the
   database confirm the room is still where it was (one query for the waits
   ending together, games.web.live.database).

Catching up: while the subscription is down, at most LONG_POLL_WAITERS
waiters of this process poll the database once a second; the others hold
on (no herd of queries or of state answers at the moment Redis blinks).
Whatever was lost, every wait ends within 45 s (38 to 45, spread) with the
board re-reading its state.

Why 45 s: a board nobody moves on costs this process one renewal a wait
(the 304, the board's next request, the database's confirmation). At 10,000
boards and 25 s those were 430 a second, a third of a core, and every
player's move waited behind them; at 45 s there are about half as many, and
the moves wait that much less (docs/LOAD.md). A lost pulse now
costs a board at most 45 s, and nginx's proxy_read_timeout (55 s) stays
above the longest wait. gunicorn's fallback (games.web.longpoll) holds a
thread, not a coroutine, and keeps its 25 s.
"""

import asyncio
import logging
import random
from typing import NamedTuple

from games.selectors.pulse import Pulse
from games.web.live.database import database_pulse
from games.web.live.hub import Hub, Waiter, Word, hub, tick

log = logging.getLogger(__name__)

WAIT_SECONDS = 45.0  # below nginx's proxy_read_timeout (55 s); see above
POLL_EVERY = 1.0  # the database, only while the hub has no subscription
# Unsubscribed and not one of the pollers: how often a waiter looks for a free slot.
SLOT_EVERY = 5.0
# A word of the database that agreed with the room's key serves the waits that come
# this long after it (a move's boards, each on its channel's message).
WORD_KEPT = 2.0  # seconds


async def wait_for_change(
    slug: str, version: int, *, seconds: float | None = None, serial: int | None = None
) -> bool:
    """Return when room `slug` moved past `version` (True) or the wait ran out with
    the database saying it is where it was (False): wait_for_pulse's first half."""
    return (await wait_for_pulse(slug, version, seconds=seconds, serial=serial)).moved


def database_word(here: Hub, slug: str, key: Pulse | None) -> Word:
    """The database's word on room `slug` for a wait whose newest pulse is `key`: one
    query for the waits that start from the same key together. A move's boards all
    ask at once, each on its channel's message (static/js/channel.js: the read
    after a message is a ?wait=, for the fan-out), and each used to cost a query
    of its own through the one sync thread. Once it agrees with the key, the
    word is kept WORD_KEPT for the boards a moment behind: their `asked` is the
    word's, so they join the flight the first of them started
    (games.web.live.fanout). A wait without a key never takes a word asked
    before it began: with Redis away nothing says a move came in between."""
    word = here.words.get(slug)
    if word is not None and key is not None and word.key == key:
        if not word.answer.done() or _agreed(word):
            return word
    word = Word(key, tick(), here.moment(), here.loop.create_task(database_pulse(slug)))
    here.words[slug] = word

    def landed(_answer: "asyncio.Future[Pulse | None]") -> None:
        if _agreed(word):
            here.loop.call_later(WORD_KEPT, _forget_word, here, slug, word)
        else:
            _forget_word(here, slug, word)

    word.answer.add_done_callback(landed)
    return word


def _agreed(word: Word) -> bool:
    """The database answered, and said what the key says."""
    answer = word.answer
    if not answer.done() or answer.cancelled() or answer.exception() is not None:
        return False
    return word.key is not None and answer.result() == word.key


def _forget_word(here: Hub, slug: str, word: Word) -> None:
    if here.words.get(slug) is word:
        del here.words[slug]


class Woken(NamedTuple):
    """How a wait ended: moved or not; the pulse it moved to (None where nothing says
    which: no such room, no word from the database; the board's answer is then
    Django's to give); and when it learnt so (hub.tick: a state read after it is
    at least that new)."""

    moved: bool
    pulse: Pulse | None
    tick: int


async def wait_for_pulse(
    slug: str, version: int, *, seconds: float | None = None, serial: int | None = None
) -> Woken:
    """wait_for_change, saying which pulse ended the wait and when it was heard.

    True at once for a room that is not there (the view answers its 404), and for
    a board whose state was read at another `serial` than the room's now (a word,
    a written answer, a vacation: what moves no version). A room still waiting
    for its second player is at version 0 until the join. The database's word
    at the end catches a publish that was lost on its way.
    """
    here = hub()
    waiter = Waiter()
    here.add(slug, waiter)  # before reading the pulse: nothing published after it is missed
    slot = False
    try:
        key = start = await here.start_pulse(slug)
        asked: int | None = None  # when the database was asked (a state read after is as new)
        if key is None or key.version != version or (serial is not None and key.serial != serial):
            # No key, a lost publish, or news to confirm.
            word = database_word(here, slug, key)
            start, asked = await asyncio.shield(word.answer), word.asked
            if key is not None and start is not None and key.serial > start.serial:
                waiter.ignore_key(key)  # of a timeline a restore undid
                await here.forget_key(slug, key)
            elif key is None and start is not None:
                await here.remember_key(slug, start)  # one query a quiet room, not a wait
            if start is not None:
                here.learn(slug, start, word.moment)  # the next wait on it asks nobody
        if start is None or start.version != version:
            # Not there, or not where the board is.
            return Woken(True, start, tick() if asked is None else asked)
        if serial is not None and start.serial != serial:
            # Changed since the board's last answer.
            return Woken(True, start, tick() if asked is None else asked)
        waiter.start = start
        # Spread over the last 15 %: boards that began together (a deploy, a
        # reconnect) do not all come back in the same second.
        seconds = WAIT_SECONDS if seconds is None else seconds
        deadline = here.loop.time() + seconds * random.uniform(0.85, 1.0)
        while (left := deadline - here.loop.time()) > 0:
            if waiter.moved():
                return Woken(True, waiter.newest(), waiter.tick)
            if not here.subscribed and not slot and not here.slots.locked():
                await here.slots.acquire()  # one of the few that poll the database
                slot = True
            polling = slot and not here.subscribed
            # Subscribed, one alarm for the whole wait: the hub rouses the waiter
            # when a pulse comes and when its subscription goes down (hub.nudge).
            # It was a look every 5 s, a twentieth of a busy worker's main thread;
            # the alarm is the hub's, shared (no timer, task or cancellation of
            # its own: each was seen in profiles or in the memory a wait holds).
            if polling:
                step = min(left, POLL_EVERY)
            else:
                step = left if here.subscribed else min(left, SLOT_EVERY)
            await here.sleep(waiter, step)
            if waiter.moved():
                return Woken(True, waiter.newest(), waiter.tick)
            if polling and (now := await database_pulse(slug)) != start:
                return Woken(True, now, tick())
        try:
            now = await here.database.pulse(slug)
        except Exception as error:
            log.info("live: no word from the database on room %s (%r)", slug, error)
            return Woken(True, None, tick())  # Django answers, or says why it cannot
        return Woken(True, now, tick()) if now != start else Woken(False, None, tick())
    finally:
        here.discard(slug, waiter)
        if slot:
            here.slots.release()
