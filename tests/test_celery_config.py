"""The worker side under production variables: how long lost work takes to come
back, how long anything may hang, which queue each task waits in, and that the
documented commands start a worker for every queue."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from celery.utils.time import get_exponential_backoff_interval
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent

PRODUCTION = {
    "DJANGO_SETTINGS_MODULE": "config.settings.base",
    "SECRET_KEY": "a-production-key-for-this-test-only-0123456789-abcdefghijklmnop",
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
    "EMAIL_URL": "smtp+tls://mesa:secret@smtp.example.com:587",
}

READ = """
import json
from django.conf import settings
from django.db import OperationalError
from config import celery_app as app
web_knows = sorted(name for name in app.tasks if name.startswith("games."))
app.loader.import_default_modules()
router = app.amqp.router
print(json.dumps({
    "transport": settings.CELERY_BROKER_TRANSPORT_OPTIONS,
    "connect": settings.CELERY_BROKER_CONNECTION_TIMEOUT,
    "web_knows": web_knows,
    "email_backend": settings.EMAIL_BACKEND,
    "email_timeout": settings.EMAIL_TIMEOUT,
    "soft": app.conf.task_soft_time_limit,
    "bot_budget": settings.BOT_MOVE_BUDGET_SECONDS,
    "bot_stuck_after": settings.BOT_STUCK_AFTER.total_seconds(),
    "hard": app.conf.task_time_limit,
    "limits": {name: [task.soft_time_limit, task.time_limit] for name, task in app.tasks.items()},
    "backoff_max": {name: getattr(task, "retry_backoff_max", 0) for name, task in app.tasks.items()
                    if getattr(task, "autoretry_for", ())},
    "database_retries": {
        name: [int(task.retry_backoff), task.retry_backoff_max, task.max_retries,
               getattr(task, "retry_jitter", True)]
        for name, task in app.tasks.items()
        if any(issubclass(e, OperationalError) for e in getattr(task, "autoretry_for", ()))
    },
    "queues": {name: router.route({}, name)["queue"].name for name in app.tasks
               if name.startswith(("games.", "accounts."))},
}))
"""


def production_settings() -> dict:
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    env.update(PRODUCTION)
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", READ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_lost_work_comes_back_in_minutes_and_nothing_hangs_for_long():
    conf = production_settings()
    transport = conf["transport"]
    visibility = transport["visibility_timeout"]
    # The longest a message sits unacknowledged on purpose: the turn email's
    # pause and Celery's own retries (database trouble); mail retries wait in
    # the database instead.
    longest_delay = max(60, *conf["backoff_max"].values())
    assert 5 * longest_delay <= visibility < 3600
    hard_limits = [hard or conf["hard"] for _soft, hard in conf["limits"].values()]
    assert max(hard_limits) < visibility  # a running task is never handed out twice
    for soft, hard in conf["limits"].values():
        assert (soft or conf["soft"]) < (hard or conf["hard"])
    assert transport["socket_connect_timeout"] <= 5 and transport["socket_timeout"] <= 10
    assert conf["connect"] <= 5
    assert conf["email_backend"] == "games.mail.smtp.EmailBackend"
    assert 0 < conf["email_timeout"] <= 30 < conf["soft"]


def test_a_bots_move_ends_by_its_budget_long_before_its_limits_or_a_nudge():
    conf = production_settings()
    budget = conf["bot_budget"]
    soft, hard = conf["limits"]["games.tasks.bot_turn"]
    # The search stops at the budget; the limits are for a task gone wrong,
    # with room for the first pass and the last evaluation on a loaded machine.
    assert 0 < budget and budget + 30 <= soft < hard
    # The first pass and one evaluation past the budget (~2 s idle) end
    # before a stuck bot is nudged: a copy comes only for a turn still queued.
    assert budget + 2 < conf["bot_stuck_after"]


def test_a_task_that_lost_the_database_retries_past_a_thirty_second_outage():
    conf = production_settings()
    retrying = conf["database_retries"]
    assert {"games.tasks.bot_turn", "games.tasks.turn_email", "games.tasks.analyse_game"} <= set(
        retrying
    )
    for name, (factor, longest, tries, jitter) in retrying.items():
        # Celery's own schedule; "full jitter" could make every wait nearly nothing.
        assert not jitter, name
        waits = [get_exponential_backoff_interval(factor, n, longest, False) for n in range(tries)]
        assert sum(waits) >= 2 * 30, (name, waits)  # twice the outage, to spare
        assert max(waits) <= 30, (name, waits)  # the first try after it comes soon


def test_bots_mail_and_sweeps_wait_in_queues_of_their_own():
    conf = production_settings()
    queues = conf["queues"]
    # A web process (no worker start-up, no autodiscovery) publishes by name too.
    assert {name for name in queues if name.startswith("games.")} == set(conf["web_knows"])
    assert queues["games.tasks.bot_turn"] == "bots"
    for name in ("turn_email", "match_ended_email", "opponent_joined_email", "send_daily_digests"):
        assert queues[f"games.tasks.{name}"] == "mail"
    assert queues["accounts.tasks.send_templated_mail_task"] == "mail"
    for name in (
        "publish_follow_ups",
        "nudge_stuck_bots",
        "close_absent_games",
        "requeue_stuck_analyses",
        "catch_up_analyses",
    ):
        assert queues[f"games.tasks.{name}"] == "sweeps"
    assert queues["games.tasks.analyse_game"] == "analysis"
    assert set(queues.values()) <= set(settings.CELERY_QUEUE_NAMES.split(","))


def consumed(text: str) -> list[set[str]]:
    """The queues of each `celery ... worker ... -Q a,b` command in `text`."""
    workers = re.findall(r"celery -A config worker[^\n]*?-Q ([\w,]+)", text)
    return [set(names.split(",")) for names in workers]


def test_make_run_and_the_deploy_guide_start_a_worker_for_every_queue():
    every = set(settings.CELERY_QUEUE_NAMES.split(","))
    makefile = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    by_hand = (ROOT / "docs" / "DEPLOY.md").read_text()
    for text in (makefile, by_hand):
        workers = consumed(text)
        assert set().union(*workers) == every
        # The mail queue has a worker to itself: a hung mail server holds no bot.
        assert any(queues == {"mail"} for queues in workers)
