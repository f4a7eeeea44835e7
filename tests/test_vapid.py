"""Web Push on `make run`: a development run without VAPID keys makes a pair on its
first start, keeps it with the local data (gitignored) and uses it from then on;
production's pair stays in the environment. Each case runs the settings the way
`make run` does: a fresh process, DEBUG on, the embedded defaults."""

import json
import subprocess
import sys

from cryptography.hazmat.primitives.asymmetric import ec

from tests.helpers import b64u, point, unb64u
from tests.test_deploy import ROOT, production_env

SHOW = (
    "import json, django; django.setup()\n"
    "from django.conf import settings\n"
    "from games.mail.push import push_enabled\n"
    "print(json.dumps([settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY, push_enabled()]))"
)
# What `make run` sets: DEBUG on, nothing else (SQLite, the filesystem broker, ...).
DEV_RUN = {
    "DEBUG": "true",
    "SECRET_KEY": None,
    "SITE_URL": None,
    "ALLOWED_HOSTS": None,
    "DATABASE_URL": None,
    "CELERY_BROKER_URL": None,
    "CACHE_URL": None,
    "TRUSTED_PROXIES": None,
}


def start(**overrides):
    return subprocess.Popen(
        [sys.executable, "-c", SHOW],
        cwd=ROOT,
        env=production_env(**{**DEV_RUN, **overrides}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def keys(process):
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return json.loads(out.splitlines()[-1])


def test_the_first_development_run_makes_a_pair_and_the_next_ones_keep_it(tmp_path):
    kept = tmp_path / "local" / "vapid.json"
    # The web server and three workers start at once on a fresh checkout.
    first = [keys(process) for process in [start(VAPID_KEY_FILE=str(kept)) for _ in range(4)]]
    private, public, enabled = first[0]
    assert enabled is True
    assert all(pair == first[0] for pair in first)
    # A real P-256 pair: the public point is the private scalar's.
    key = ec.derive_private_key(int.from_bytes(unb64u(private), "big"), ec.SECP256R1())
    assert b64u(point(key)) == public
    assert kept.stat().st_mode & 0o777 == 0o600
    assert keys(start(VAPID_KEY_FILE=str(kept))) == first[0]
    assert [path.name for path in kept.parent.iterdir()] == ["vapid.json"]


def test_the_default_place_is_beside_the_local_data_and_never_committed():
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", "-q", ".mesa/vapid.json"], cwd=ROOT
    )
    assert ignored.returncode == 0


def test_keys_in_the_environment_are_used_and_nothing_is_written(tmp_path):
    kept = tmp_path / "vapid.json"
    key = ec.generate_private_key(ec.SECP256R1())
    mine = [b64u(key.private_numbers().private_value.to_bytes(32, "big")), b64u(point(key))]
    got = keys(start(VAPID_KEY_FILE=str(kept), VAPID_PRIVATE_KEY=mine[0], VAPID_PUBLIC_KEY=mine[1]))
    assert got == [*mine, True]
    assert not kept.exists()


def test_production_without_keys_pushes_nothing_and_writes_nothing(tmp_path):
    kept = tmp_path / "vapid.json"
    process = subprocess.Popen(
        [sys.executable, "-c", SHOW],
        cwd=ROOT,
        env=production_env(VAPID_KEY_FILE=str(kept)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert keys(process) == ["", "", False]
    assert not kept.exists()
