from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Mesa"

    def ready(self):
        # games.outbox publishes tasks by name from any process, the web ones
        # too, where Celery's autodiscovery (worker start-up) never runs;
        # games.signals connects its receivers (guest seats join at log-in).
        from . import signals, tasks  # noqa: F401
