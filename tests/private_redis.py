"""A Redis server of a test's own, to kill and restart: no persistence, so a
restart comes back empty, as a Redis killed without its append-only file does.

The port is MESA_PRIVATE_REDIS_PORT when set (a checkout's own range on a
shared machine), else one the system has free. Without redis-server the
test is skipped (failed on CI, tests.helpers.missing).
"""

import shutil
import signal
import subprocess
import time

import redis

from tests.helpers import free_port, missing


class PrivateRedis:
    def __init__(self, port: int | None = None):
        import os

        binary = shutil.which("redis-server")
        if binary is None:
            missing("redis-server is not installed (apt-get install redis-server)")
        self.binary = binary
        self.port = port or int(os.environ.get("MESA_PRIVATE_REDIS_PORT") or free_port())
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_connect_timeout=1, socket_timeout=2)

    def start(self) -> "PrivateRedis":
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--save", "",
                "--appendonly", "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while True:
            try:
                self.client().ping()
                return self
            except redis.RedisError:
                assert self.process.poll() is None, f"redis-server on {self.port} exited"
                assert time.monotonic() < deadline, f"redis-server on {self.port} never answered"
                time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: what it held in memory is gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)  # if it was stopped
            self.process.kill()
            self.process.wait(timeout=10)

    def pause(self) -> None:
        """SIGSTOP: a hung Redis that keeps its sockets open and answers nothing."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def restart_empty(self) -> None:
        self.kill()
        self.start()

    def __enter__(self) -> "PrivateRedis":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.kill()
