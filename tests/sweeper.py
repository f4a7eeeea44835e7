"""Send the beat's sweeps to the workers of `make run`, over and over.

`python -m tests.sweeper SECONDS` (with the environment of the run it
sweeps): for SECONDS, every half second, the sweeps that close absent games,
expire idle rooms and mail the absence reminders go through the embedded
broker to the workers, as the beat sends them every few minutes. A producer
of its own beside the web server's and the beat's, and a writer of its own
on the database (the worker running each sweep). Prints how many it sent.
"""

import sys
import time

import django


def main(seconds: float) -> int:
    django.setup()
    from games import tasks

    sweeps = (tasks.close_absent_games, tasks.expire_idle_rooms, tasks.send_absence_reminders)
    sent = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for sweep in sweeps:
            sweep.delay()
            sent += 1
        time.sleep(0.5)
    print(f"sweeps sent: {sent}")
    return 0


if __name__ == "__main__":
    sys.exit(main(float(sys.argv[1])))
