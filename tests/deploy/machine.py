"""A machine laid out as docs/DEPLOY.md installs Mesa, and its units started as
systemd starts them, for tests/deploy/test_kit_running.py.

The units of deploy/systemd/ are read by tests/deploy/systemd.py (the unit,
the operator's drop-ins, specifiers, Environment= and EnvironmentFile=) and
their ExecStart= runs as expanded, unchanged. The paths the units name are
the machine's: each process runs in a mount namespace of its own (unshare,
as systemd gives services one) where /srv holds the checkout as /srv/mesa,
/run the runtime folders systemd would create (RuntimeDirectory=), and
/var/lib the state folders (StateDirectory=); the files under /etc that the
units read come from `files`. A Type=notify service is ready when its main
process says READY=1 on $NOTIFY_SOCKET, as NotifyAccess=main wants.

What is not applied: User=/Group= (the processes run as the test's user),
ProtectSystem=, ProtectHome=, PrivateTmp=, NoNewPrivileges= and the limits,
Restart= (a process that exits is a failure of the test instead).
"""

from __future__ import annotations

import os
import pwd
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import systemd

ROOT = Path(__file__).resolve().parent.parent.parent
UNITS = ROOT / "deploy" / "systemd"
UNSHARE = shutil.which("unshare") or "/usr/bin/unshare"


@dataclass
class Service:
    name: str
    argv: list[str]
    environment: dict[str, str]
    process: subprocess.Popen
    log: Path
    notify: socket.socket | None = None

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_ready(self, seconds: float) -> None:
        """Type=notify: READY=1 from the main process (NotifyAccess=main); else started."""
        if self.notify is None:
            return
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited before READY=1:\n{self.output()[-3000:]}")
            self.notify.settimeout(0.2)
            try:
                data, ancillary, _flags, _address = self.notify.recvmsg(4096, 1024)
            except TimeoutError:
                continue
            sender = None
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                    sender = struct.unpack("iII", payload[:12])[0]
            lines = data.decode(errors="replace").splitlines()
            if "READY=1" in lines and sender == self.process.pid:
                return
        raise RuntimeError(f"{self.name}: no READY=1 from its main process in {seconds} s")

    def stop(self, seconds: float = 40) -> None:
        """KillMode=mixed: the stop signal to the main process, SIGKILL to what is left."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=seconds)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=10)
        if self.notify is not None:
            self.notify.close()


@dataclass
class Machine:
    """One machine: a folder standing for its /srv, /run, /var/lib and /etc/systemd/system."""

    folder: Path
    files: dict[str, Path]  # a path on the machine -> the file that is there
    manager: systemd.Manager = field(default_factory=systemd.Manager)
    services: dict[str, Service] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("srv", "run", "var-lib", "system", "notify", "logs"):
            (self.folder / name).mkdir(parents=True, exist_ok=True)
        link = self.folder / "srv" / "mesa"
        if not link.exists():
            link.symlink_to(ROOT)  # the checkout where docs/DEPLOY.md puts it

    def path(self, on_machine: str) -> Path:
        """Where a path of the machine is in this folder (for the test's own reads)."""
        for prefix, here in (("/run/", "run"), ("/var/lib/", "var-lib"), ("/srv/", "srv")):
            if on_machine.startswith(prefix):
                return self.folder / here / on_machine[len(prefix) :]
        return self.files.get(on_machine, Path(on_machine))

    def read(self, on_machine: str) -> str | None:
        path = self.path(on_machine)
        return path.read_text() if path.exists() else None

    def drop_in(self, unit: str, name: str, text: str) -> None:
        """/etc/systemd/system/<unit>.d/<name>.conf, as `systemctl edit` writes it."""
        folder = self.folder / "system" / f"{unit}.d"
        folder.mkdir(exist_ok=True)
        (folder / name).write_text(text)

    def unit(self, name: str) -> systemd.Unit:
        drop_ins = sorted((self.folder / "system" / f"{name}.d").glob("*.conf"))
        return systemd.load_unit(
            UNITS / name, installed_as=f"/etc/systemd/system/{name}", drop_ins=drop_ins
        )

    def _layout(self, unit: systemd.Unit, notify: Path | None) -> tuple[dict[str, str], str]:
        """The unit's environment, and the shell lines that set up its namespace."""
        user = pwd.getpwuid(os.getuid()).pw_name  # User= is not applied here
        base = {"PATH": systemd.DEFAULT_PATH, **systemd.user_environment(user)}
        for key, variable, here in (
            ("RuntimeDirectory", "RUNTIME_DIRECTORY", "run"),
            ("StateDirectory", "STATE_DIRECTORY", "var-lib"),
        ):
            names = systemd.directories(unit, self.manager, key)
            mode = int(unit.value("Service", f"{key}Mode", "0755") or "0755", 8)
            for folder in names:
                (self.folder / here / folder).mkdir(parents=True, exist_ok=True)
                (self.folder / here / folder).chmod(mode)
            if names:
                root = "/run" if here == "run" else "/var/lib"
                base[variable] = ":".join(f"{root}/{n}" for n in names)
        if notify is not None:
            base["NOTIFY_SOCKET"] = str(notify)
        environment = systemd.environment(unit, self.manager, read=self.read, base=base)
        workdir = systemd.working_directory(unit, self.manager)
        cwd = workdir.path or ("~" if workdir.home else "/")
        mounts = [
            f"mount --bind {shlex.quote(str(self.folder / 'srv'))} /srv",
            f"mount --bind {shlex.quote(str(self.folder / 'run'))} /run",
        ]
        if unit.values("Service", "StateDirectory"):
            mounts.append(f"mount --bind {shlex.quote(str(self.folder / 'var-lib'))} /var/lib")
        cd = f"cd {shlex.quote(cwd)}" if cwd != "~" else 'cd "$HOME"'
        if workdir.optional:
            cd += " 2>/dev/null || true"
        umask = unit.value("Service", "UMask", "0022")
        return environment, " && ".join([*mounts, cd, f"umask {umask}", 'exec "$@"'])

    def _spawn(self, argv: list[str], environment: dict[str, str], script: str, log: Path):
        with log.open("w") as out:
            return subprocess.Popen(
                [UNSHARE, "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script]
                + ["sh", *argv],
                env=environment,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def start(self, name: str) -> Service:
        """systemctl start <name>: its one ExecStart= as systemd expands it."""
        unit = self.unit(name)
        [command] = systemd.exec_start(unit, self.manager)
        assert command.argv[0] == command.path, "ExecStart=@ is not used by the kit"
        notify = None
        sock: socket.socket | None = None
        if unit.value("Service", "Type", "simple") == "notify":
            notify = self.folder / "notify" / f"{name}.sock"
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
            sock.bind(str(notify))
        environment, script = self._layout(unit, notify)
        argv = command.expanded(environment)
        log = self.folder / "logs" / f"{name}.log"
        process = self._spawn(argv, environment, script, log)
        service = Service(name, argv, environment, process, log, notify=sock)
        self.services[name] = service
        return service

    def run(self, name: str, argv: list[str], seconds: float = 120) -> str:
        """A one-off command with a unit's environment and folders (as `mesa-manage` runs
        manage.py with the site's settings); its output, or an error when it fails."""
        unit = self.unit(name)
        environment, script = self._layout(unit, None)
        log = self.folder / "logs" / f"{name}-{argv[-1].strip('-')}.log"
        process = self._spawn(argv, environment, script, log)
        if process.wait(timeout=seconds) != 0:
            raise RuntimeError(f"{argv} failed:\n{log.read_text(errors='replace')[-3000:]}")
        return log.read_text(errors="replace")

    def stop_all(self) -> None:
        """systemctl stop mesa.target: every unit told at once, each waited for."""
        for service in self.services.values():
            if service.process.poll() is None:
                service.process.send_signal(signal.SIGTERM)
        for service in self.services.values():
            service.stop()
