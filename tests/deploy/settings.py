"""The production settings behind nginx, with room-creation limits a test can reach."""

from config.settings.base import *  # noqa: F403

MESA_RATE_LIMITS = {
    **MESA_RATE_LIMITS,  # noqa: F405
    "create": {"address": (2, 600), "session": (100, 600)},
}
