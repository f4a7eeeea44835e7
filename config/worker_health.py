"""`python -m config.worker_health <worker name>`: 0 when that worker ran its
liveness probe recently (config/liveness.py), 1 when not; compose's healthcheck.

A module of its own: config.liveness is loaded with the Celery app, and
`python -m` on it would run a second copy.
"""

import sys

from config import liveness


def main(argv: list[str]) -> int:
    """`python -m config.worker_health <worker name>`: 0 when its heartbeat is fresh."""
    if len(argv) != 1:
        print("usage: python -m config.worker_health <worker name: bots@host>", file=sys.stderr)
        return 2
    age = liveness.heartbeat_age(argv[0])
    if age is None:
        print(f"{argv[0]}: no probe has run yet", file=sys.stderr)
        return 1
    if age > liveness.wedged_after():
        print(f"{argv[0]}: no probe ran for {age:.0f} s", file=sys.stderr)
        return 1
    print(f"{argv[0]}: last probe {age:.0f} s ago")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
