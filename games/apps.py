from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Mesa"

    def ready(self) -> None:
        # games.services.outbox publishes tasks by name from any process, the
        # web ones too, where Celery's autodiscovery (worker start-up) never
        # runs; games.web.signals connects its receivers (guest seats join at
        # log-in).
        from games import tasks  # noqa: F401
        from games.web import signals  # noqa: F401
