"""Backup → restore → the same boards, on PostgreSQL, the way docs/DEPLOY.md says.

Rooms are played (two guests by link, a guest against a bot, an account and
a guest through a whole match and its analysis), then backed up by the doc's
cron line, played on (the timeline the restore will undo, whose pulses stay
in Redis), and restored by the doc's restore lines into a fresh database owned
by a role of its own, migrated as the doc says. The site, pointed at the
restored database in a process of its own (tests/deploy/restore_probe.py),
must show every seat and a spectator exactly the state they had at the
backup, replay every match from its turns, and hold a board's `?wait=` on a
restored room although Redis still holds the lost timeline's pulse.

The commands are the doc's own lines: the scripts they name
(scripts/mesa-backup, scripts/mesa-restore) are run from this checkout, with
the database, its owner and the backup folder given through the scripts'
documented variables; only the example file name of the restore line is this
test's backup.
"""

import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import uuid
from datetime import timedelta

import psycopg
import pytest
import redis
from django.conf import settings
from django.db import connection

from games import services, tasks
from games.engine import MatchRules
from games.models import GameAnalysis, Match
from games.selectors.pulse import Pulse, room_pulse
from games.services import live
from tests.helpers import (
    START,
    Persona,
    account,
    bind,
    current_match,
    first_legal_play,
    missing,
    play_out,
    play_turns,
)
from tests.test_deploy import ROOT

DOC = ROOT / "docs" / "DEPLOY.md"
CHECKOUT = "/srv/mesa/"  # where docs/DEPLOY.md puts the code (section 4)
WAIT_SECONDS = 2.0


# -- the doc's lines ---------------------------------------------------------------


def backup_section() -> str:
    text = DOC.read_text()
    start = text.index("## 11. Backups")
    return text[start : text.index("\n## ", start + 1)]


def shell_blocks() -> list[list[str]]:
    return [
        [line for line in block.splitlines() if line.strip()]
        for block in re.findall(r"```sh\n(.*?)```", backup_section(), re.S)
    ]


def from_checkout(path: str) -> str:
    assert path.startswith(CHECKOUT), f"{path} is not in the checkout the doc installs"
    return str(ROOT / path.removeprefix(CHECKOUT))


def backup_command() -> tuple[str, list[str]]:
    """(user, argv) of the cron line the doc installs: cron.d's five fields, the
    user, then the command, in which cron would turn a bare % into a newline."""
    # The one line of the here-document the doc writes to /etc/cron.d/.
    [block] = [b for b in shell_blocks() if any("/etc/cron.d/" in line for line in b)]
    start = next(i for i, line in enumerate(block) if "/etc/cron.d/" in line)
    end = block.index("CRON", start)
    [cron] = block[start + 1 : end]
    fields = cron.split(None, 6)
    assert len(fields) == 7, cron
    user, command = fields[5], fields[6]
    assert "%" not in command.replace("\\%", ""), "cron would cut the command at a bare %"
    argv = shlex.split(command.replace("\\%", "%"))
    return user, [from_checkout(argv[0]), *argv[1:]]


def restore_commands() -> list[list[str]]:
    [block] = [block for block in shell_blocks() if any("mesa-restore" in line for line in block)]
    return [shlex.split(line, comments=True) for line in block]


# -- the machine -------------------------------------------------------------------


def server() -> dict[str, str]:
    db = connection.settings_dict
    return {"PGHOST": db["HOST"] or "127.0.0.1", "PGPORT": str(db["PORT"] or 5432)}


def admin(sql: str) -> None:
    with psycopg.connect(
        host=server()["PGHOST"],
        port=server()["PGPORT"],
        user="postgres",
        dbname="postgres",
        autocommit=True,
    ) as conn:
        conn.execute(sql)


def run_as(user: str, argv: list[str], **variables: str) -> None:
    """argv as `sudo -u user` would run it: libpq connects as that user."""
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp")}
    env.update(server(), PGUSER=user, **variables)
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"{argv}: {result.stdout}{result.stderr}"


def site_env(database_url: str, state_cache: str = "locmemcache://") -> dict[str, str]:
    """The site's variables. Its state cache is its own memory unless a test
    says otherwise: what it answers is computed from the database it is on."""
    env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG") if key in os.environ}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATABASE_URL=database_url,
        CELERY_BROKER_URL="memory://",
        LIVE_REDIS_URL=settings.LIVE_REDIS_URL,
        LIVE_CHANNEL=settings.LIVE_CHANNEL,
        STATE_CACHE_URL=state_cache,
    )
    return env


def manage(database_url: str, *args: str) -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=site_env(database_url),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def probe(database_url: str, command: str, request: dict, **env: str) -> dict:
    at = (START + timedelta(hours=3)).isoformat()
    result = subprocess.run(
        [sys.executable, "-m", "tests.deploy.restore_probe", command],
        cwd=ROOT,
        env=site_env(database_url, **env),
        input=json.dumps({**request, "at": at}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def url(user: str, name: str) -> str:
    return f"postgres://{user}@{server()['PGHOST']}:{server()['PGPORT']}/{name}"


# -- the rooms ---------------------------------------------------------------------


def session_of(persona: Persona) -> str:
    return persona.client.cookies[settings.SESSION_COOKIE_NAME].value


def bot_answers(room, human: Persona) -> None:
    for _ in range(10):
        match = current_match(room)
        if match.status == Match.Status.FINISHED or match.turn_seat_id == human.seat.pk:
            return
        tasks.bot_turn(match.pk, match.version)


def human_turns(room, human: Persona, count: int) -> None:
    for _ in range(count):
        bot_answers(room, human)
        match = current_match(room)
        side = match.side_of(human.seat)
        services.game_play(
            seat=human.seat, version=match.version, play=first_legal_play(room, side)
        )
    bot_answers(room, human)


@pytest.fixture
def postgres_and_redis(settings):
    if connection.vendor != "postgresql":
        pytest.skip("pg_dump and pg_restore: PostgreSQL only (DATABASE_URL)")
    for tool in ("pg_dump", "pg_restore", "dropdb", "createdb"):
        if shutil.which(tool) is None:
            missing(f"{tool} is not installed (postgresql-client)")
    if not settings.LIVE_REDIS_URL:
        missing("LIVE_REDIS_URL (or a redis:// CELERY_BROKER_URL / CACHE_URL) is not set")
    keys = redis.Redis.from_url(settings.LIVE_REDIS_URL, socket_connect_timeout=1)
    try:
        keys.ping()
    except redis.RedisError as error:
        missing(f"Redis does not answer at {settings.LIVE_REDIS_URL} ({error})")
    settings.LIVE_CHANNEL = f"mesa:live:test:{uuid.uuid4().hex[:8]}"
    live.reset()
    yield keys
    live.reset()
    for key in keys.scan_iter(f"{settings.LIVE_CHANNEL}:*"):
        keys.delete(key)
    keys.close()


@pytest.mark.django_db(transaction=True)
def test_a_backup_restored_as_the_doc_says_shows_every_board_as_it_was(
    postgres_and_redis, alice, bob, room, dice, fast_analysis, monkeypatch, tmp_path
):
    import games.bots

    monkeypatch.setattr(
        games.bots, "get_bot", lambda name: games.bots.RandomPlayer(random.Random(7))
    )
    # Two guests by link, a few turns and a word.
    play_turns(room, alice, bob, 6)
    services.message_send(seat=bob.seat, text="¡Buena jugada!")
    bind(alice, room)
    bind(bob, room)
    # A guest against a bot.
    seat = services.room_create(rules=MatchRules(), nickname="carla", bot="domador")
    carla = Persona("carla", seat=seat, token=seat.token)
    bot_room = seat.room
    human_turns(bot_room, carla, 4)
    bind(carla, bot_room)
    # An account and a guest, a whole match, analysed.
    ana_account = account("ana")
    seat = services.room_create(rules=MatchRules(), nickname="ana", user=ana_account)
    ana = Persona("ana", seat=seat, token=seat.token)
    finished_room = seat.room
    seat = services.room_join(room=finished_room, nickname="eva")
    eva = Persona("eva", seat=seat, token=seat.token)
    play_out(finished_room, ana, eva)
    assert (
        tasks.analyse_game(GameAnalysis.objects.get(game__match__room=finished_room).pk) == "done"
    )
    ana.client.force_login(ana_account)
    bind(eva, finished_room)

    boards = {
        "rooms": [
            {"slug": room.slug, "viewers": {"1": session_of(alice), "2": session_of(bob), "-": ""}},
            {"slug": bot_room.slug, "viewers": {"1": session_of(carla), "-": ""}},
            {
                "slug": finished_room.slug,
                "viewers": {"1": session_of(ana), "2": session_of(eva), "-": ""},
            },
        ]
    }
    source = connection.settings_dict["NAME"]
    before = probe(url("postgres", source), "states", boards)
    assert all(v["status"] == 200 for r in before["states"].values() for v in r.values())
    assert before["states"][finished_room.slug]["-"]["body"]["match"]["analysis"]  # reviewed
    assert before["states"][room.slug]["1"]["body"] != before["states"][room.slug]["-"]["body"]

    # The backup, by the doc's cron line.
    user, backup = backup_command()
    folder = tmp_path / "backups"
    folder.mkdir()
    connection.close()  # nothing of this test's holds the database while it is copied
    run_as(user, backup, MESA_DB=source, MESA_BACKUPS=str(folder))
    [dump] = folder.glob(f"{source}-*.dump")

    # The timeline the restore undoes: a word, read by a board through the
    # site's shared state cache (Redis, as in production), then more moves,
    # their pulses published to Redis.
    shared = {"state_cache": settings.LIVE_REDIS_URL}
    services.message_send(seat=alice.seat, text="¿otra?")
    alices = {"rooms": [{"slug": room.slug, "viewers": {"1": session_of(alice)}}]}
    [lost_word] = probe(url("postgres", source), "states", alices, **shared)["states"].values()
    assert "¿otra?" in json.dumps(lost_word, ensure_ascii=False)
    play_turns(room, alice, bob, 3)
    human_turns(bot_room, carla, 2)
    lost = Pulse.decode(postgres_and_redis.get(live.room_key(room.slug)))
    assert lost is not None and lost.version > before["states"][room.slug]["1"]["body"]["version"]

    # The restore, by the doc's lines, into a fresh database of a role of its own.
    restored, owner = f"{source}_restored", f"{source}_owner"
    admin(f'DROP DATABASE IF EXISTS "{restored}" WITH (FORCE)')
    admin(f'DROP ROLE IF EXISTS "{owner}"')
    admin(f'CREATE ROLE "{owner}" LOGIN')
    steps = restore_commands()
    try:
        ran = []
        for argv in steps:
            if argv[0] == "sudo":
                assert argv[1:3] == ["-u", "postgres"] and argv[3].endswith("/mesa-restore"), argv
                assert argv[4].startswith("/var/backups/mesa/"), "restores what the cron line keeps"
                run_as(
                    "postgres",
                    [from_checkout(argv[3]), str(dump)],
                    MESA_DB=restored,
                    MESA_DB_OWNER=owner,
                )
                ran.append("restore")
            elif argv[0] == "mesa-manage":
                manage(url(owner, restored), *argv[1:])
                ran.append(argv[1])
            else:
                # Stopping and starting the services, asking /readyz: the site
                # here is the probe's process, started afresh below.
                assert argv[0] in ("systemctl", "curl"), argv
                ran.append(argv[0])
        assert ran == ["systemctl", "restore", "migrate", "systemctl", "curl"]

        after = probe(url(owner, restored), "states", boards)
        assert after["states"] == before["states"]
        assert after["turns"] == before["turns"]
        assert after["replays"] == before["replays"]
        assert set(after["replays"].values()) == {True} and len(after["replays"]) >= 3

        # The restored room's board waits, though Redis holds the lost timeline's pulse.
        held = probe(
            url(owner, restored),
            "wait",
            {"slug": room.slug, "cookie": session_of(alice), "seconds": WAIT_SECONDS},
        )
        assert Pulse.decode(held["key_before"]) == lost
        database = Pulse.decode(held["database"])
        assert database.version < lost.version and held["version"] == database.version
        assert held["status"] == 304
        assert held["held"] >= 0.85 * WAIT_SECONDS, f"answered after {held['held']:.2f} s"
        assert held["key_after"] is None  # forgotten: the room's next publish is stored again

        # A word of the restored timeline, read through the same shared state
        # cache: the board shows it, not the lost word that came at that point.
        probe(url(owner, restored), "say", {"slug": room.slug, "seat": 2, "text": "¡hola!"})
        [board] = probe(url(owner, restored), "states", alices, **shared)["states"].values()
        shown = json.dumps(board, ensure_ascii=False)
        assert "¡hola!" in shown and "¿otra?" not in shown
    finally:
        admin(f'DROP DATABASE IF EXISTS "{restored}" WITH (FORCE)')
        admin(f'DROP ROLE IF EXISTS "{owner}"')
    assert room_pulse(room_id=room.pk) is not None


@pytest.mark.django_db(transaction=True)
def test_the_backup_keeps_two_weeks_and_never_a_half_written_file(postgres_and_redis, tmp_path):
    user, backup = backup_command()
    source = connection.settings_dict["NAME"]
    old, recent = tmp_path / f"{source}-2026-01-01.dump", tmp_path / f"{source}-2026-01-20.dump"
    other = tmp_path / "notes.txt"
    for path, days in ((old, 15), (recent, 13), (other, 40)):
        path.write_text("x")
        then = path.stat().st_mtime - days * 86400
        os.utime(path, (then, then))
    connection.close()
    run_as(user, backup, MESA_DB=source, MESA_BACKUPS=str(tmp_path))
    dumps = sorted(p.name for p in tmp_path.iterdir())
    assert old.name not in dumps and recent.name in dumps and other.name in dumps
    [today] = [name for name in dumps if name not in (recent.name, other.name)]
    assert today.startswith(f"{source}-") and today.endswith(".dump")

    # A database that is not there: the script fails, and leaves no file behind.
    env = {"PATH": os.environ["PATH"], **server(), "PGUSER": user}
    failed = subprocess.run(
        backup,
        env={**env, "MESA_DB": f"{source}_missing", "MESA_BACKUPS": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert failed.returncode != 0
    assert sorted(p.name for p in tmp_path.iterdir()) == dumps
