"""The Celery app's configuration, and a real worker on the embedded broker."""

import os
import time

from celery import Celery
from kombu import Connection

from accounts.tasks import send_templated_mail_task
from config import celery_app
from config.celery import _create_filesystem_broker_folders
from tests.celery_worker import celery_worker


def test_the_app_reads_the_django_settings():
    conf = celery_app.conf
    assert celery_app.main == "mesa"
    assert conf.task_acks_late is True
    assert conf.task_reject_on_worker_lost is True
    assert conf.worker_prefetch_multiplier == 1
    assert conf.task_always_eager is False
    assert conf.task_publish_retry is True
    assert conf.timezone == "UTC"


def test_the_tasks_of_every_app_are_found():
    celery_app.autodiscover_tasks(force=True)

    assert "accounts.tasks.send_templated_mail_task" in celery_app.tasks


def test_the_mail_task_retries_on_smtp_trouble_only():
    import smtplib

    assert smtplib.SMTPException in send_templated_mail_task.autoretry_for
    assert send_templated_mail_task.max_retries == 5


def test_a_separate_worker_process_runs_a_task_sent_through_the_filesystem_broker(tmp_path):
    """The embedded default of `make run`: no server, two processes, one queue."""
    broker_dir, mail_dir = tmp_path / "broker", tmp_path / "mail"
    queue, control = broker_dir / "queue", broker_dir / "control"
    for folder in (queue, control, mail_dir):
        folder.mkdir(parents=True)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "CELERY_BROKER_URL": "filesystem://",
        "CELERY_BROKER_DIR": str(broker_dir),
        # django-environ drops one leading slash of the path.
        "EMAIL_URL": f"filemail:///{mail_dir}",
    }
    with celery_worker(env) as worker:
        # Publish from this process into the worker's folders.
        options = {
            "data_folder_in": str(queue),
            "data_folder_out": str(queue),
            "control_folder": str(control),
        }
        with Connection("filesystem://", transport_options=options) as connection:
            send_templated_mail_task.apply_async(
                kwargs={
                    "to": "bruno@example.com",
                    "template_name": "confirm_email",
                    "context": {"name": "Bruno", "confirm_url": "http://127.0.0.1:8000/c/"},
                    "language": "en",
                },
                connection=connection,
            )
        deadline = time.monotonic() + 30

        def written_whole() -> list[str]:
            # The file backend creates the file before it writes the message,
            # and ends each message with a line of 79 dashes: wait for that.
            texts = [path.read_text() for path in mail_dir.iterdir()]
            return texts if texts and all("-" * 79 in text for text in texts) else []

        while not written_whole() and time.monotonic() < deadline:
            assert worker.poll() is None, worker.stdout.read()
            time.sleep(0.2)
        written = written_whole()
    output = worker.output

    assert written, output
    assert "Subject: Confirm your email at Mesa" in written[0]
    assert "To: bruno@example.com" in written[0]
    assert "Task accounts.tasks.send_templated_mail_task" in output


def test_the_filesystem_broker_folders_are_created_when_the_app_is_configured(
    tmp_path, monkeypatch
):
    # Celery lets this variable override broker_url (CI sets it to Redis).
    monkeypatch.delenv("CELERY_BROKER_URL", raising=False)
    app = Celery("probe", set_as_current=False)
    folders = {name: tmp_path / name for name in ("queue", "control")}
    app.conf.broker_url = "filesystem://"
    app.conf.broker_transport_options = {
        "data_folder_in": str(folders["queue"]),
        "data_folder_out": str(folders["queue"]),
        "control_folder": str(folders["control"]),
    }

    _create_filesystem_broker_folders(sender=app)

    assert all(folder.is_dir() for folder in folders.values())


def test_a_redis_broker_creates_no_folders(tmp_path):
    app = Celery("probe", set_as_current=False)
    app.conf.broker_url = "redis://127.0.0.1:6379/0"
    app.conf.broker_transport_options = {"data_folder_in": str(tmp_path / "queue")}

    _create_filesystem_broker_folders(sender=app)

    assert not (tmp_path / "queue").exists()


def test_every_beat_entry_names_a_registered_task():
    celery_app.autodiscover_tasks(force=True)
    schedule = celery_app.conf.beat_schedule

    assert {entry["task"] for entry in schedule.values()} >= {
        "games.tasks.close_absent_games",
        "games.tasks.expire_idle_rooms",
    }
    for name, entry in schedule.items():
        assert entry["task"] in celery_app.tasks, name
