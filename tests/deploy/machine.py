"""A machine laid out as docs/DEPLOY.md installs Mesa, and its units started as
systemd starts them, for tests/deploy/test_kit_running.py.

The units of deploy/systemd/ are read by tests/deploy/systemd.py (the unit,
the operator's drop-ins, specifiers, Environment= and EnvironmentFile=) and
their ExecStart= runs as expanded, unchanged. The paths the units name are
the machine's: each process runs in a mount namespace of its own (unshare,
as systemd gives services one) where /srv/mesa is the checkout, /run holds
the runtime folders systemd would create (RuntimeDirectory=) and /var/lib
the state folders (StateDirectory=), with ProtectSystem=strict,
ProtectHome=yes and PrivateTmp=yes applied; the files under /etc that the
units read come from `files`. A Type=notify service is ready when its main
process says READY=1 on $NOTIFY_SOCKET, as NotifyAccess=main wants.

What is not applied: User=/Group= (the processes run as the test's user,
with its HOME), NoNewPrivileges= and the limits, Restart= (a process that
exits is a failure of the test instead).
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


def q(path: object) -> str:
    return shlex.quote(str(path))


def _sandbox(unit: systemd.Unit, writable: list[str], stage: Path) -> list[str]:
    """ProtectSystem=strict, ProtectHome=yes, PrivateTmp=yes and BindReadOnlyPaths=
    as systemd.exec(5) describes them: every mount read-only but /dev, /proc and
    /sys, the unit's own folders and ReadWritePaths= writable again; /home, /root
    and /run/user empty and read-only; /tmp and /var/tmp fresh and private; the
    read-only binds on top of all that."""
    lines = []
    binds = [
        word.removeprefix("-").split(":")
        for value in unit.values("Service", "BindReadOnlyPaths")
        for word in systemd.split_words(value)
    ]
    staged = []
    # Held on a side path first, under /run (a mount of its own, so covering
    # /tmp leaves it be): ProtectHome= and PrivateTmp= hide the sources, and
    # systemd lays the binds over them afterwards.
    for number, (source, *target) in enumerate(binds):
        lines.append(f"mkdir -p {q(stage / str(number))}")
        lines.append(f"mount --bind {q(source)} {q(stage / str(number))}")
        staged.append((stage / str(number), target[0] if target else source))
    if unit.value("Service", "ProtectSystem") == "strict":
        lines.append(
            "for m in $(awk '{print $5}' /proc/self/mountinfo | sort -u); do"
            ' case "$m" in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*) ;;'
            ' *) mount -o remount,bind,ro "$m" || exit 1;; esac; done'
        )
        for path in writable:
            lines.append(f"mount --bind {q(path)} {q(path)}")
            lines.append(f"mount -o remount,bind,rw {q(path)}")
    hidden = []
    if unit.value("Service", "ProtectHome") == "yes":
        for path in ("/home", "/root", "/run/user"):
            lines.append(f"{{ [ ! -d {path} ] || mount -t tmpfs -o mode=000 tmpfs {path}; }}")
            hidden.append(path)
    if unit.value("Service", "PrivateTmp") == "yes":
        lines += [
            "mount -t tmpfs -o mode=1777 tmpfs /tmp",
            "mount -t tmpfs -o mode=1777 tmpfs /var/tmp",
        ]
    for source, target in staged:
        lines.append(f"mkdir -p {q(target)}")
        lines.append(f"mount --bind {q(source)} {q(target)}")
        lines.append(f"mount -o remount,bind,ro {q(target)}")
    for path in hidden:
        lines.append(f"{{ [ ! -d {path} ] || mount -o remount,bind,ro {path}; }}")
    return lines


@dataclass
class Service:
    name: str
    argv: list[str]
    environment: dict[str, str]
    process: subprocess.Popen
    log: Path
    notify: socket.socket | None = None
    kill_signal: signal.Signals = signal.SIGTERM  # KillSignal=
    kill_mode: str = "control-group"  # KillMode=: who gets it (the process group here)
    signalled: bool = False

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

    def signal(self) -> None:
        """KillSignal= to the main process (KillMode=mixed or process) or to every
        process of the unit (control-group, the default; its process group here)."""
        if self.process.poll() is not None or self.signalled:
            return
        self.signalled = True
        if self.kill_mode == "control-group":
            os.killpg(self.process.pid, self.kill_signal)
        else:
            self.process.send_signal(self.kill_signal)

    def stop(self, seconds: float = 40) -> None:
        """systemctl stop: KillSignal= as KillMode= says, SIGKILL for what is left
        after `seconds` (shorter than the units' TimeoutStopSec=)."""
        self.signal()
        if self.process.poll() is None:
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
        for name in ("srv", "run", "var-lib", "system", "logs"):
            (self.folder / name).mkdir(parents=True, exist_ok=True)
        (self.folder / "srv" / "mesa").mkdir(exist_ok=True)  # the checkout is mounted here

    def path(self, on_machine: str) -> Path:
        """Where a path of the machine is in this folder (for the test's own reads)."""
        if on_machine.startswith("/srv/mesa/"):
            return ROOT / on_machine.removeprefix("/srv/mesa/")
        for prefix, here in (("/run/", "run"), ("/var/lib/", "var-lib")):
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

    def _layout(
        self, unit: systemd.Unit, notify: Path | None, *, sandbox: bool = True
    ) -> tuple[dict[str, str], str]:
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
            base["NOTIFY_SOCKET"] = f"/run/systemd/{notify.name}"
        environment = systemd.environment(unit, self.manager, read=self.read, base=base)
        workdir = systemd.working_directory(unit, self.manager)
        cwd = workdir.path or ("~" if workdir.home else "/")
        lines = [
            f"mount --bind {q(self.folder / 'srv')} /srv",
            f"mount --bind {q(ROOT)} /srv/mesa",
            f"mount --bind {q(self.folder / 'run')} /run",
        ]
        writable = [
            f"/run/{name}" for name in systemd.directories(unit, self.manager, "RuntimeDirectory")
        ]
        if unit.values("Service", "StateDirectory"):
            lines.append(f"mount --bind {q(self.folder / 'var-lib')} /var/lib")
            writable += [
                f"/var/lib/{name}"
                for name in systemd.directories(unit, self.manager, "StateDirectory")
            ]
        writable += [
            w for v in unit.values("Service", "ReadWritePaths") for w in systemd.split_words(v)
        ]
        if sandbox:
            lines += _sandbox(unit, writable, Path("/run/.bind-stage") / unit.name)
        cd = f"cd {q(cwd)}" if cwd != "~" else 'cd "$HOME"'
        if workdir.optional:
            cd = f"{{ {cd} 2>/dev/null || true; }}"
        umask = unit.value("Service", "UMask", "0022")
        return environment, " && ".join([*lines, cd, f"umask {umask}", 'exec "$@"'])

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
            # Where systemd's own is, /run/systemd: visible through PrivateTmp=.
            (self.folder / "run" / "systemd").mkdir(exist_ok=True)
            notify = self.folder / "run" / "systemd" / f"notify.{name}"
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
            sock.bind(str(notify))
        environment, script = self._layout(unit, notify)
        argv = command.expanded(environment)
        log = self.folder / "logs" / f"{name}.log"
        process = self._spawn(argv, environment, script, log)
        kill_signal = signal.Signals[unit.value("Service", "KillSignal", "SIGTERM") or "SIGTERM"]
        kill_mode = unit.value("Service", "KillMode", "control-group") or "control-group"
        service = Service(name, argv, environment, process, log, sock, kill_signal, kill_mode)
        self.services[name] = service
        return service

    def run(self, name: str, argv: list[str], seconds: float = 120) -> str:
        """A one-off command with a unit's environment and folders, outside its sandbox
        (as `mesa-manage` runs manage.py as the site's user): its output, or an error."""
        unit = self.unit(name)
        environment, script = self._layout(unit, None, sandbox=False)
        log = self.folder / "logs" / f"{name}-{argv[2] if len(argv) > 2 else 'run'}.log"
        process = self._spawn(argv, environment, script, log)
        if process.wait(timeout=seconds) != 0:
            raise RuntimeError(f"{argv} failed:\n{log.read_text(errors='replace')[-3000:]}")
        return log.read_text(errors="replace")

    def reload(self, name: str, seconds: float = 30) -> None:
        """systemctl reload <name>: each ExecReload= with $MAINPID, in the unit's namespace."""
        service = self.services[name]
        unit = self.unit(name)
        commands = systemd.exec_reload(unit, self.manager)
        assert commands, f"{name} has no ExecReload="
        environment = {**service.environment, "MAINPID": str(service.process.pid)}
        _environment, script = self._layout(unit, None)
        for number, command in enumerate(commands):
            log = self.folder / "logs" / f"{name}-reload-{number}.log"
            process = self._spawn(command.expanded(environment), environment, script, log)
            if process.wait(timeout=seconds) != 0 and not command.ignore_failure:
                raise RuntimeError(f"{name}: ExecReload= failed: {log.read_text()[-2000:]}")

    def stop(self, name: str, seconds: float = 40) -> Service:
        """systemctl stop <name>: the unit leaves the running ones."""
        service = self.services.pop(name)
        service.stop(seconds)
        return service

    def stop_all(self) -> None:
        """systemctl stop mesa.target: every unit told at once, each waited for."""
        for service in self.services.values():
            service.signal()
        for service in self.services.values():
            service.stop()
