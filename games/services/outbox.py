"""The outbox: follow-up tasks recorded in the same transaction as the change.

A move, a join or a bot's turn owes work to a worker (the bot's next action,
"Es tu turno", the end-of-match email). games.services records it as a
FollowUp row inside its own transaction, and the task is handed to the broker
only once that transaction commits, best-effort: when the broker is down the
move is still saved and answered, and the row waits, unpublished, for the
follow-up sweep (every minute) to publish it. Nothing owed is lost between
"committed" and "queued", whether the broker failed or the process died.

A row is not done when it is published: a broker that lost its data (Redis
killed without persistence, or restarted empty) loses the message with it.
Each published message carries its row's id in a header (HEADER); the task,
once it ran, marks the row done (games.tasks, after the task returns or
fails for good; a retry is not the end). The sweep publishes again a row
published but not done by its `due_at`, which publishing sets to the queue's
re-drive deadline (settings.FOLLOW_UP_REDRIVE_SECONDS: a bot's turn is owed
within seconds, an email within minutes), doubling with each re-drive; after
FOLLOW_UP_REDRIVES_MAX re-drives it becomes a dead letter. Re-driving a task
that did run is harmless: each is idempotent at its effect (a bot's turn
checks the match's version, an email goes through games.mail.claims, an
analysis done is not redone).

Mail that the server refused for now waits here too, with `due_at` in the
future (exponential backoff up to hours, far longer than a broker should hold
a message), and lands here for good, as a dead letter, when it runs out of
tries. The admin lists those and can send them again.

Tasks are looked up by name in the Celery app, so this module needs neither
games.tasks nor a function-level import.
"""

import logging
import random
import threading
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.db import DatabaseError, transaction
from django.db.models import Q, QuerySet
from kombu.exceptions import EncodeError
from kombu.pools import ProducerPool

from games.lib import clock
from games.lib.outage import Outage
from games.models import FollowUp

log = logging.getLogger(__name__)
publish_outage = Outage(
    "the broker",
    log,
    meanwhile="follow-ups left for the sweep",
    skip_for=settings.FAIL_OPEN_RETRY_SECONDS,
)

# Done rows are kept this long (to look at in the admin), then deleted.
KEEP_PUBLISHED = timedelta(days=1)

# The message header that names the FollowUp row a task runs for.
HEADER = "mesa_follow_up"


def sweep_every() -> timedelta:
    return timedelta(seconds=settings.FOLLOW_UP_SWEEP_SECONDS)


def queue_of(task: str) -> str:
    """The queue a task is routed to (settings.CELERY_TASK_ROUTES)."""
    name: str = current_app.amqp.router.route({}, task)["queue"].name
    return name


def redrive_after(task: str, redrives: int = 0) -> timedelta:
    """How long after a publish the task must have run, or the sweep publishes it
    again: its queue's FOLLOW_UP_REDRIVE_SECONDS, doubled for each re-drive so far,
    up to the queue's FOLLOW_UP_REDRIVE_LONGEST if it has one."""
    deadlines: dict[str, int] = settings.FOLLOW_UP_REDRIVE_SECONDS
    queue = queue_of(task)
    seconds = deadlines.get(queue, deadlines["default"]) * 2 ** min(redrives, 10)
    longest: dict[str, int] = settings.FOLLOW_UP_REDRIVE_LONGEST
    return timedelta(seconds=min(seconds, longest.get(queue, seconds)))


def mark_done(row_id: int) -> bool:
    """The task of row `row_id` ran (or failed for good): the sweep leaves it.

    A row set aside after too many re-drives that did run after all is no
    dead letter any more."""
    updated: int = FollowUp.objects.filter(pk=row_id, done_at__isnull=True).update(
        done_at=clock.now(), failed_at=None
    )
    return updated > 0


def schedule(task: str, *args: object, delay: timedelta = timedelta(0)) -> FollowUp:
    """Record `task(*args)` in the caller's transaction; publish it when that commits."""
    now = clock.now()
    row = FollowUp.objects.create(task=task, args=list(args), due_at=now + delay, created_at=now)
    # publish() never raises; robust all the same: nothing after the commit may fail the answer.
    transaction.on_commit(lambda: publish(row), robust=True)
    return row


def defer(task: str, *args: object, until: datetime, **kwargs: object) -> FollowUp:
    """Record `task(*args, **kwargs)` for the sweep to publish once `until` has passed."""
    return FollowUp.objects.create(
        task=task, args=list(args), kwargs=kwargs, due_at=until, created_at=clock.now()
    )


def publish(row: FollowUp) -> bool:
    """Hand the row's task to the broker right after the commit; never raises.

    Goes through the task's `apply_async`, so a task's own defaults (the turn
    email's pause) apply. The request is waiting on this: the broker gets
    BROKER_PUBLISH_TIMEOUT to connect and to answer (and the settings' one
    quick retry, for a pooled connection that went stale), and after a failure
    this process leaves it alone for FAIL_OPEN_RETRY_SECONDS, with one log
    line. On any failure the row stays unpublished for the sweep: the saved
    change must not turn into an error page, nor wait on a hung broker.
    """
    if publish_outage.skipping():
        return False
    try:
        producers = _producers()
        with producers.acquire(block=True, timeout=settings.BROKER_PUBLISH_TIMEOUT) as producer:
            current_app.tasks[row.task].apply_async(
                row.args, row.kwargs, producer=producer, headers={HEADER: str(row.pk)}
            )
    except Exception as error:  # broker down or hung: the sweep publishes it later
        publish_outage.failed(error)
        return False
    publish_outage.ok()
    now = clock.now()
    try:
        FollowUp.objects.filter(pk=row.pk, published_at__isnull=True).update(
            published_at=now, due_at=now + redrive_after(row.task)
        )
    except DatabaseError as error:
        # The database went away after the commit: the sweep publishes the row
        # again, and the task's own checks make the second copy do nothing.
        log.warning("follow-up %s published, not marked so: %s", row, error)
    return True


_pool: ProducerPool | None = None
_pool_lock = threading.Lock()


def _producers() -> ProducerPool:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = producers_for(str(current_app.conf.broker_url))
        return _pool


def producers_for(url: str) -> ProducerPool:
    """Producers for the publish after a commit: connections of their own to
    the broker at `url`, with BROKER_PUBLISH_TIMEOUT to connect and to answer."""
    app = current_app
    timeout = settings.BROKER_PUBLISH_TIMEOUT
    options: dict[str, float] = {}
    if url.startswith(("redis://", "rediss://")):
        options = {"socket_connect_timeout": timeout, "socket_timeout": timeout}
    limit = app.conf.broker_pool_limit or 10
    connections = app.connection_for_write(
        url, connect_timeout=timeout, transport_options=options
    ).Pool(limit=limit)
    return ProducerPool(connections, limit=limit, Producer=app.amqp.Producer)


def owed_rows(rows: QuerySet[FollowUp], now: datetime) -> QuerySet[FollowUp]:
    """The live rows not done whose time has come, oldest first (followup_owed_idx):
    unpublished and due (half a sweep ago: their own publish may be under way),
    or published and past their re-drive deadline."""
    owed = Q(published_at__isnull=True, due_at__lte=now - sweep_every() / 2) | Q(
        published_at__isnull=False, due_at__lte=now
    )
    return rows.filter(owed, done_at__isnull=True, failed_at__isnull=True).order_by("due_at")


def publish_due(*, batch: int = 200) -> int:
    """Publish the live rows that are due and not done; return how many.

    Due: never published, and due; or published, not done by its re-drive
    deadline (`due_at`), so its message was most likely lost with the broker's
    data: it is published again, and its next deadline doubles. Rows younger
    than half a sweep period are left alone: their own on-commit publish is
    probably under way (a second copy would be harmless, as every task
    re-checks, but pointless). Locked with skip_locked, so two sweeps at once
    publish each row once; on the first failure the broker is still down, and
    the rest waits for the next sweep. A row the broker cannot be given at all
    (a task that no longer exists, arguments it refuses), or still not done
    after FOLLOW_UP_REDRIVES_MAX re-drives, becomes a dead letter instead of
    blocking the rows behind it.
    """
    now = clock.now()
    published = 0
    with transaction.atomic():
        locked = FollowUp.objects.select_for_update(skip_locked=True)
        rows = list(owed_rows(locked, now)[:batch])
        for row in rows:
            again = row.published_at is not None
            if again and row.redrives >= settings.FOLLOW_UP_REDRIVES_MAX:
                log.error("follow-up sweep: %s never ran after %d re-drives", row, row.redrives)
                FollowUp.objects.filter(pk=row.pk).update(
                    failed_at=now, error=f"published {row.redrives + 1} times, never ran"
                )
                continue
            try:
                current_app.tasks[row.task].apply_async(
                    row.args, row.kwargs, countdown=0, headers={HEADER: str(row.pk)}
                )
            except (KeyError, TypeError, ValueError, EncodeError) as error:
                # No such task, or arguments it refuses: the row itself is bad.
                log.exception("follow-up sweep: %s cannot be published", row)
                FollowUp.objects.filter(pk=row.pk).update(
                    failed_at=now, error=f"{type(error).__name__}: {error}"[:2000]
                )
                continue
            except Exception:  # the broker's trouble, whatever its library calls it
                log.warning("follow-up sweep: broker down, %s waits", row, exc_info=True)
                break
            redrives = row.redrives + again
            if again:
                log.warning(
                    "follow-up sweep: %s published at %s never ran: re-driven (%d)",
                    row,
                    row.published_at,
                    redrives,
                )
            FollowUp.objects.filter(pk=row.pk).update(
                published_at=now,
                due_at=now + redrive_after(row.task, redrives),
                redrives=redrives,
            )
            published += 1
    FollowUp.objects.filter(done_at__lt=now - KEEP_PUBLISHED).delete()
    return published


# --- mail that could not be delivered yet ---------------------------------------


def retry_delay(attempt: int) -> timedelta:
    """The wait before try number `attempt` (1, 2...): doubling from
    MAIL_RETRY_FIRST_SECONDS up to MAIL_RETRY_MAX_SECONDS, plus up to 10 %
    jitter so that mail held back by one outage does not all come back at once."""
    first, longest = settings.MAIL_RETRY_FIRST_SECONDS, settings.MAIL_RETRY_MAX_SECONDS
    seconds = min(first * 2 ** (attempt - 1), longest)
    return timedelta(seconds=seconds * (1 + random.random() / 10))  # not a secret


def retry_later(
    task: str,
    args: Iterable[object],
    *,
    attempt: int,
    error: BaseException,
    not_before: datetime | None = None,
) -> FollowUp:
    """Keep a mail task that failed for now: due again after a backoff, or dead
    (failed_at) once it has had MAIL_TRIES tries. `not_before`: due again just
    after it instead (the moment another worker's claim on the email runs out)."""
    now = clock.now()
    row = FollowUp(
        task=task,
        args=list(args),
        kwargs={"attempt": attempt},
        due_at=now,
        created_at=now,
        error=f"{type(error).__name__}: {error}"[:2000],
    )
    if attempt >= settings.MAIL_TRIES:
        row.failed_at = now
        log.error("mail task %s gave up after %d tries: %s", row, attempt, row.error)
    else:
        row.due_at = now + retry_delay(attempt)
        if not_before is not None:
            row.due_at = max(now, not_before + timedelta(seconds=1))
    row.save()
    return row


def dead_letter(
    task: str, args: Iterable[object], *, error: str, release: Mapping[str, object] | None = None
) -> FollowUp:
    """Keep a mail the site will not send again by itself, for a person to look at."""
    now = clock.now()
    return FollowUp.objects.create(
        task=task,
        args=list(args),
        due_at=now,
        failed_at=now,
        created_at=now,
        error=error[:2000],
        release=release,
    )


def resend(rows: QuerySet[FollowUp]) -> int:
    """The admin's "send again": each dead letter becomes a live row, due now, with
    fresh tries; the follow-up sweep publishes it. The caller released the claims."""
    count: int = rows.filter(failed_at__isnull=False).update(
        failed_at=None,
        published_at=None,
        done_at=None,
        redrives=0,
        due_at=clock.now(),
        kwargs={},
        release=None,
    )
    return count
