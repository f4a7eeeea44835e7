from django.apps import AppConfig


class MesaConfig(AppConfig):
    """The project itself as an app: its system checks (config.checks)."""

    name = "config"
    label = "mesa"

    def ready(self) -> None:
        from . import checks  # noqa: F401 - registers the checks
