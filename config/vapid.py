"""The Web Push key pair of a development run (`make run`), made on its first start.

Production keeps its pair in the environment (VAPID_PRIVATE_KEY, VAPID_PUBLIC_KEY).
A development run without them gets one of its own, kept in a file beside the
local data (`.mesa/vapid.json`, gitignored), so push works on `make run` and
the browsers' subscriptions survive a restart. The web server and the workers
start together and all read the settings: the first to write the file wins,
the others read what it wrote (a link is atomic and fails when the file exists).
"""

import base64
import json
import os
import tempfile
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def _b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def new_key_pair() -> tuple[str, str]:
    """(private, public) as the settings take them: the raw P-256 scalar and the
    uncompressed point, base64url without padding."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_numbers().private_value.to_bytes(32, "big")
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return _b64u(private), _b64u(public)


def local_key_pair(path: Path) -> tuple[str, str]:
    """The pair kept in `path`, made and written (owner-only) the first time."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        private, public = new_key_pair()
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".vapid-")  # mode 0600
        try:
            with os.fdopen(handle, "w") as out:
                json.dump({"private": private, "public": public}, out)
            os.link(temporary, path)
        except FileExistsError:
            pass  # another process of the same run wrote it first: use theirs
        finally:
            os.unlink(temporary)
    saved = json.loads(path.read_text())
    return str(saved["private"]), str(saved["public"])
