"""`make chaos`: the fault scenarios against real processes on 127.0.0.1.

Starts, in a temporary folder: a PostgreSQL of its own (initdb, so that it may
restart it and terminate its backends; never the machine's shared one), a
Redis of its own (append-only file, so a stop and start keeps what it held, as
a production Redis would; the broker and, as in production, the cache,
CACHE_URL, and the live updates' pub/sub), the deploy kit's front as `make
load` runs it (bench/front.py): nginx rendered from
deploy/nginx/mesa.conf.template in front of gunicorn (mesa-web.service: 3
gthread workers × 20 threads) and uvicorn (mesa-live.service: 2 processes
holding the boards' `?wait=` polls, gunicorn their backup), both started with
their unit's own ExecStart= and Environment= on unix sockets in the run's
folder; the four Celery workers as the deploy kit's units start them
(deploy/systemd/mesa-worker-*: bots, 2 processes of one search thread; sweeps,
1; mail, 2; analysis, 1), beat, and an SMTP server in this process that it can
hang (a socket that accepts and never answers), stop, and make lose its
answers (it keeps the message, the "250" comes after EMAIL_TIMEOUT), and a
push service in this process (pushserver.py: it takes pywebpush's POSTs on
127.0.0.1, checks each message's VAPID token against the keys made for the
run, and decrypts it with the browser's keys; PUSH_ALLOW_LOOPBACK lets the
site post there). Every player reaches the site through nginx over HTTPS (its
throwaway certificate unchecked); nginx's own 502 for a request whose process
died counts as a dropped connection (the app never answered). Ports from
CHAOS_PORT_BASE (18200): nginx's HTTPS (the site), Redis, SMTP, PostgreSQL,
nginx's HTTP, the push service, nginx's nchan publisher are base+0..6.

Scenarios (`--only NAME[,NAME]` runs some; all by default):

  redis-stop    Redis (broker and cache) stopped 45 s while people move, join
                and open rooms against the computer
  worker-kill   the bots' worker SIGKILLed again and again mid turn
  web-kill      a gunicorn worker SIGKILLed 6 times with actions in flight
  postgres      PostgreSQL restarted (pg_ctl restart -m fast) and its
                backends terminated while people and the computer play
  two-beats     a second beat for the whole scenario, sweeps every 15 s, and
                the deadlines of the games moved back in the database (the
                reminder, "ya puedes cerrar", closing by absence, the digest,
                a room's expiry all fall due)
  smtp          SMTP hung, then down for "20 minutes", then losing its answers
  redis-empty   Redis SIGKILLed and started again empty (no persistence)
  postgres-stop PostgreSQL stopped 20 s as turn emails fall due and the
                computer plays, then its backends terminated
  redis-kill    Redis SIGKILLed and started again on its append-only file
  mail-kill     the mail worker SIGKILLed mid-conversation with the SMTP
                server, while "someone sat down" goes out, then while "Es tu
                turno" does
  uvicorn-kill  uvicorn (mesa-live, both processes) SIGKILLed 4 times and
                started again 2 s later (RestartSec=2) while the boards wait
                and people move
  pubsub-cut    the live hubs' Redis subscriptions killed 5 times (CLIENT
                KILL TYPE pubsub) while the boards wait and people move
  nginx-kill    nginx (master and workers) SIGKILLed 3 times and started
                again 2 s later while the boards wait on its channels and
                people and the computer move
  nginx-reload  nginx reloaded 4 times (SIGHUP, as after certbot renewed
                the certificate) while the boards wait on its channels and
                people and the computer move
  push          "Es tu turno" by Web Push beside the email, to signed-in
                players whose browsers allowed notifications, the mail
                worker SIGKILLed as they fall due and the push service slow

In uvicorn-kill, pubsub-cut and the two nginx scenarios each player of a
room of two has a board (boards.py; in the nginx ones, each player against
the computer too), which must end showing its room's version. It
polls as the real one does (static/js/poll.js around
static/js/board/api.js): one GET /api/rooms/<slug>/?wait=<version> at a
time with its ETag and pass; the next at once after a held answer, after
1 s growing 1.5× to 20 s after a quick one with nothing new, after 20 s
after an error. The board never retries a held request itself: one whose
uvicorn died is nginx's to send on to gunicorn (the backup of mesa_live),
and the note counts those from nginx's access log.

Every scenario prints the same columns: moves sent / acknowledged (200) /
stored (in the turn log); saved but told it failed (an HTTP error for a move
that is stored); bot turns owed / played and the latest lateness (from the
turn that made it the computer's to the computer's action); emails owed /
delivered / duplicated / unowed (counted from what the SMTP server received,
by address and kind, after the whole run); the same for the turn pushes (from
what the push service received, by browser); moves owed to the other player's
waiting board / seen by it; 5xx answers; games stuck waiting for the computer.
The run fails (exit 1) when a move is saved but told it failed, a game is
stuck, an owed email never came, an email nobody was owed came, or a duplicate
came other than after a lost answer (at most one each), or an analysis never
finished, or a waiting board never showed a move. Beside them, the longest
lateness of each kind of follow-up: a bot's action (from the person's action
before it), a move shown by the other player's waiting board (from the move's
acknowledgement to the board's answer that shows it), each kind of email and
the push (from when it fell due: "Es tu turno" 60 s after the turn passed, the
others when their event happened; to its arrival at the SMTP server), the push
to its arrival at the push service; an analysis (asked for to done); what fell
due during an outage of some length (Redis stopped, PostgreSQL stopped, the
mail server away) counts from the outage's end, and the note gives it from the
due time too. Targets (docs/OPERATIONS.md): a bot within 30 s, everything else
within 2 minutes.

The follow-up machinery runs on production's timings (the follow-up sweep, the
bot nudge, the re-drive deadlines, the liveness probe), so its lateness is
what a player would see. Two things are shortened: mail retries start at 4 s
instead of 2 minutes (a scale of 1:30, so the SMTP server is down for 40 s =
20 minutes of retries), and the beat's other sweeps (the reminder, "ya puedes
cerrar", the digest, closing by absence) run every 15 s instead of every 10
minutes or daily (scripts/chaos_settings.py): their emails' lateness is the
shortened sweep's, not production's. The people in the games "leave the board"
by having their last_seen_at set an hour back, so that "Es tu turno" is due.
Every wait has a deadline; everything started is stopped at the end, whatever
happens.

The package, by job: env.py (the ports, the processes' settings, Django set up
on them, the log and the bounded waits), processes.py (the site's processes,
supervised as systemd would; Redis; a PostgreSQL of the run's own),
mailserver.py (the SMTP server and its inbox), pushserver.py (the push
service), players.py (browsers on the site), boards.py (their boards,
waiting), polling.py (what the clients decide, pure), scenarios.py (the
faults), report.py (what each scenario measured and the table), cli.py
(`python -m scripts.chaos`: start, run, print, stop)."""
