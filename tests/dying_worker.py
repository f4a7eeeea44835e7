"""The Celery app of Mesa, for one fault test: a worker that dies (SIGKILL)
right after a bot's move commits, before its follow-up reaches the broker.

`celery -A tests.dying_worker worker` runs the real tasks; only the first
publish made while bot_turn runs kills the process instead, which is what a
worker killed between the bot's commit and its publish looks like.
"""

import os
import signal
import sys

from celery import signals

from config.celery import app

__all__ = ("app",)


@signals.task_prerun.connect
def _die_at_the_bots_publish(sender=None, **kwargs):
    if sender is None or sender.name != "games.tasks.bot_turn":
        return

    def die(row):
        os.kill(os.getpid(), signal.SIGKILL)

    # games.services.outbox is loaded by now (games.tasks uses it), after Django's setup.
    sys.modules["games.services.outbox"].publish = die
