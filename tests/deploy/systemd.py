"""How systemd reads a service unit, for the tests that run deploy/systemd/ as shipped.

No service manager runs here (a container has no systemd as PID 1), so this
module reads the files as systemd does, by its documented rules and its code:

- the unit file: sections, `Key=value`, comments, a trailing backslash that
  joins lines, drop-ins in `<unit>.d/*.conf` read after the unit, an empty
  assignment that resets a list (systemd.syntax(7), systemd.unit(5));
- specifiers, `%%` -> `%`, `%h`, `%H`, `%i`, `%n`, `%u`..., resolved for the
  system manager, an unknown one an error that stops the unit from loading
  (systemd.unit(5) "SPECIFIERS", src/shared/specifier.c);
- `ExecStart=`: the prefixes (`-` ignores the exit status, `@`, `:`, `+`, `!`,
  `!!`), words unquoted with C escapes, specifiers resolved word by word, then
  at start `$VAR` and `${VAR}` from the environment (systemd.service(5)
  "COMMAND LINES", config_parse_exec, replace_env_argv);
- `Environment=` and `EnvironmentFile=` (`-` for an optional file), the files
  read in order and winning over `Environment=` (systemd.exec(5),
  src/basic/env-file.c);
- `WorkingDirectory=` (`-`, `~`), `RuntimeDirectory=`, `StateDirectory=`.
"""

from __future__ import annotations

import os
import platform
import pwd
import re
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

WHITESPACE = " \t\n\r"
NEWLINE = "\n\r"
COMMENTS = "#;"
# What a backslash escapes inside double quotes of an environment file, as in sh.
SHELL_NEED_ESCAPE = '"\\`$'
VALID_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# The system manager's PATH for its services (systemd.exec(5), "ENVIRONMENT").
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin"


class UnitError(ValueError):
    """What systemd logs and refuses: the unit does not load, or a setting is dropped."""


# -- the unit file ---------------------------------------------------------------------


@dataclass
class Unit:
    """A unit as systemd loaded it: each section's assignments in order, drop-ins last."""

    name: str
    path: str  # where systemd found it (%y): its path on the machine
    sections: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def values(self, section: str, key: str) -> list[str]:
        """Every value of a list setting; an empty assignment drops the ones before it."""
        found: list[str] = []
        for name, value in self.sections.get(section, []):
            if name == key:
                found = [] if value == "" else [*found, value]
        return found

    def value(self, section: str, key: str, default: str | None = None) -> str | None:
        """A single-valued setting: the last assignment wins."""
        for name, value in reversed(self.sections.get(section, [])):
            if name == key:
                return value
        return default

    @property
    def prefix(self) -> str:
        stem = self.name.rsplit(".", 1)[0]
        return stem.split("@", 1)[0]

    @property
    def instance(self) -> str:
        stem = self.name.rsplit(".", 1)[0]
        return stem.split("@", 1)[1] if "@" in stem else ""


def parse_unit_text(text: str, into: dict[str, list[tuple[str, str]]] | None = None) -> dict:
    """The sections of a unit file or drop-in (systemd.syntax(7)).

    A line ending in a backslash continues on the next, the backslash becoming a
    space; comment lines inside a continuation are skipped. Leading and trailing
    whitespace of keys and values goes.
    """
    sections = into if into is not None else {}
    section: str | None = None
    pending: str | None = None
    for raw in text.splitlines():
        stripped = raw.strip()
        if pending is not None:
            if stripped[:1] in ("#", ";"):
                continue  # a comment line inside a continued line
        elif not stripped or stripped[0] in COMMENTS:
            continue
        line = raw.rstrip()
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2:  # an odd number of backslashes: the last one joins
            pending = (pending or "") + line[:-1] + " "
            continue
        line, pending = ((pending or "") + line).strip(), None
        _assign(sections, section, line)
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
    if pending is not None:
        _assign(sections, section, pending.strip())
    return sections


def _assign(sections: dict[str, list[tuple[str, str]]], section: str | None, line: str) -> None:
    if line.startswith("[") and line.endswith("]"):
        sections.setdefault(line[1:-1], [])
        return
    if "=" not in line:
        raise UnitError(f"missing '=' in {line!r}")
    if section is None:
        raise UnitError(f"assignment outside of a section: {line!r}")
    key, value = line.split("=", 1)
    sections[section].append((key.strip(), value.strip()))


def load_unit(
    path: Path, *, installed_as: str | None = None, drop_ins: Iterable[Path] = ()
) -> Unit:
    """The unit at `path` and its drop-ins, applied in the order of their file names.

    `installed_as` is where the machine keeps it (`/etc/systemd/system/<name>`),
    for `%y` and `%Y`; by default its own path.
    """
    sections = parse_unit_text(path.read_text())
    for drop_in in sorted(drop_ins, key=lambda p: p.name):
        parse_unit_text(drop_in.read_text(), into=sections)
    return Unit(name=path.name, path=installed_as or str(path), sections=sections)


# -- specifiers ------------------------------------------------------------------------


def _os_release(key: str) -> str:
    for candidate in ("/etc/os-release", "/usr/lib/os-release"):
        if os.path.exists(candidate):
            return parse_environment_file(Path(candidate).read_text()).get(key, "")
    return ""


def _read(path: str) -> str:
    return Path(path).read_text().strip()


def _unescape(text: str) -> str:
    """systemd-escape --unescape: `-` is `/`, `\\xNN` a byte."""
    text = text.replace("-", "/")
    return re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m[1], 16)), text)


# uname's machine names in systemd's architecture names (%a).
ARCHITECTURES = {"x86_64": "x86-64", "aarch64": "arm64", "i686": "x86", "armv7l": "arm"}


@dataclass(frozen=True)
class Manager:
    """The service manager whose specifiers a unit resolves: the system manager
    (PID 1, running as root) of a machine called `hostname`."""

    hostname: str = field(default_factory=socket.gethostname)

    def specifiers(self, unit: Unit) -> dict[str, Callable[[], str]]:
        """systemd.unit(5)'s table, for the system manager."""
        fragment = unit.path
        pretty = ""
        if os.path.exists("/etc/machine-info"):
            pretty = parse_environment_file(_read("/etc/machine-info")).get("PRETTY_HOSTNAME", "")
        return {
            "a": lambda: ARCHITECTURES.get(platform.machine(), platform.machine()),
            "A": lambda: _os_release("IMAGE_VERSION"),
            "b": lambda: _read("/proc/sys/kernel/random/boot_id").replace("-", ""),
            "B": lambda: _os_release("BUILD_ID"),
            "C": lambda: "/var/cache",
            "d": lambda: f"/run/credentials/{unit.name}",
            "D": lambda: "/usr/share",
            "E": lambda: "/etc",
            "f": lambda: "/" + _unescape(unit.instance or unit.prefix),
            "g": lambda: "root",
            "G": lambda: "0",
            "h": lambda: "/root",
            "H": lambda: self.hostname,
            "i": lambda: unit.instance,
            "I": lambda: _unescape(unit.instance),
            "j": lambda: unit.prefix.rsplit("-", 1)[-1],
            "J": lambda: _unescape(unit.prefix.rsplit("-", 1)[-1]),
            "l": lambda: self.hostname.split(".", 1)[0],
            "L": lambda: "/var/log",
            "m": lambda: _read("/etc/machine-id"),
            "M": lambda: _os_release("IMAGE_ID"),
            "n": lambda: unit.name,
            "N": lambda: unit.name.rsplit(".", 1)[0],
            "o": lambda: _os_release("ID"),
            "p": lambda: unit.prefix,
            "P": lambda: _unescape(unit.prefix),
            "q": lambda: pretty or self.hostname,
            "s": lambda: "/bin/sh",
            "S": lambda: "/var/lib",
            "t": lambda: "/run",
            "T": lambda: "/tmp",
            "u": lambda: "root",
            "U": lambda: "0",
            "v": lambda: platform.release(),
            "V": lambda: "/var/tmp",
            "w": lambda: _os_release("VERSION_ID"),
            "W": lambda: _os_release("VARIANT_ID"),
            "y": lambda: fragment,
            "Y": lambda: os.path.dirname(fragment),
        }


def resolve_specifiers(text: str, table: dict[str, Callable[[], str]]) -> str:
    """`%x` replaced from `table`, `%%` a percent sign; an unknown one is an
    error (specifier_printf's -EBADSLT); a lone `%` at the very end stays."""
    out: list[str] = []
    chars = iter(text)
    for c in chars:
        if c != "%":
            out.append(c)
            continue
        following = next(chars, None)
        if following is None:
            out.append("%")
        elif following == "%":
            out.append("%")
        elif following in table:
            out.append(table[following]())
        else:
            raise UnitError(f"unknown specifier %{following} in {text!r}")
    return "".join(out)


# -- words: extract_first_word(EXTRACT_UNQUOTE | EXTRACT_CUNESCAPE) ---------------------

_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    '"': '"',
    "'": "'",
    "s": " ",
}


def _cunescape_one(text: str, at: int) -> tuple[str, int]:
    """The C escape after a backslash at text[at - 1]: its character and where the rest starts."""
    if at >= len(text):
        raise UnitError(f"a backslash ends {text!r}")
    c = text[at]
    if c in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[c], at + 1
    widths = {"x": 2, "u": 4, "U": 8}
    if c in widths:
        digits = text[at + 1 : at + 1 + widths[c]]
        if len(digits) != widths[c] or not re.fullmatch(r"[0-9a-fA-F]+", digits):
            raise UnitError(f"bad \\{c} escape in {text!r}")
        code = int(digits, 16)
        if code == 0:
            raise UnitError(f"a NUL escape in {text!r}")
        return chr(code), at + 1 + widths[c]
    if c in "01234567":
        digits = text[at : at + 3]
        if len(digits) != 3 or not re.fullmatch(r"[0-7]{3}", digits) or int(digits, 8) == 0:
            raise UnitError(f"bad octal escape in {text!r}")
        return chr(int(digits, 8)), at + 3
    # extract_first_word_and_warn: an unknown escape is kept as written, with a warning.
    return "\\" + c, at + 1


def next_word(text: str, at: int = 0) -> tuple[str | None, int]:
    """The next word of `text` from `at`, unquoted and unescaped, and where the rest
    starts; None at the end. Quotes may open anywhere in a word; inside them
    whitespace is kept and C escapes still apply; an unclosed quote is an error."""
    n = len(text)
    while at < n and text[at] in WHITESPACE:
        at += 1
    if at >= n:
        return None, at
    word: list[str] = []
    quote: str | None = None
    while at < n:
        c = text[at]
        if quote:
            if c == quote:
                quote = None
                at += 1
            elif c == "\\":
                char, at = _cunescape_one(text, at + 1)
                word.append(char)
            else:
                word.append(c)
                at += 1
        elif c in WHITESPACE:
            break
        elif c in "'\"":
            quote = c
            at += 1
        elif c == "\\":
            char, at = _cunescape_one(text, at + 1)
            word.append(char)
        else:
            word.append(c)
            at += 1
    if quote:
        raise UnitError(f"unbalanced quoting in {text!r}")
    return "".join(word), at


def split_words(text: str) -> list[str]:
    words: list[str] = []
    at = 0
    while True:
        word, at = next_word(text, at)
        if word is None:
            return words
        words.append(word)


# -- ExecStart= ------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    """One command line of ExecStart=, as loaded (before the environment)."""

    path: str
    argv: tuple[str, ...]
    ignore_failure: bool = False  # "-": a failing exit status counts as success
    expand_environment: bool = True  # ":" turns $VAR expansion off

    def expanded(self, environment: dict[str, str]) -> list[str]:
        """The argv the process gets: with `$VAR` and `${VAR}` replaced."""
        if not self.expand_environment:
            return list(self.argv)
        return replace_env_argv(list(self.argv), environment)


def parse_exec(value: str, table: dict[str, Callable[[], str]]) -> list[Command]:
    """The commands of one ExecStart= value (config_parse_exec): a lone `;`
    separates commands, `\\;` is a literal one."""
    commands: list[Command] = []
    rest = value.lstrip(WHITESPACE)
    while rest:
        first, at = next_word(rest)
        if first is None:
            break
        flags = set()
        f = first
        while f and f[0] in "-@:+!":
            if f.startswith("!!"):
                flags.add("!!")
                f = f[2:]
            elif f[0] in flags:
                break
            else:
                flags.add(f[0])
                f = f[1:]
        path = resolve_specifiers(f, table)
        if not path:
            raise UnitError(f"empty path in command line {value!r}")
        if not path.startswith("/"):
            found = [
                f"{d}/{path}" for d in DEFAULT_PATH.split(":") if os.path.exists(f"{d}/{path}")
            ]
            if "/" in path or not found:
                raise UnitError(f"neither a valid executable name nor an absolute path: {path}")
            path = found[0]
        argv: list[str] = [] if "@" in flags else [path]
        rest = rest[at:]
        separated = False
        while rest.strip(WHITESPACE):
            stripped = rest.lstrip(WHITESPACE)
            if stripped[0] == ";" and (len(stripped) == 1 or stripped[1] in WHITESPACE):
                rest, separated = stripped[1:].lstrip(WHITESPACE), True
                break
            if stripped.startswith("\\;") and (len(stripped) == 2 or stripped[2] in WHITESPACE):
                argv.append(";")
                rest = stripped[2:]
                continue
            word, at = next_word(rest)
            if word is None:
                break
            argv.append(resolve_specifiers(word, table))
            rest = rest[at:]
        if not argv:
            raise UnitError(f"empty executable name or zeroeth argument: {value!r}")
        commands.append(
            Command(
                path=path,
                argv=tuple(argv),
                ignore_failure="-" in flags,
                expand_environment=":" not in flags,
            )
        )
        if not separated:
            break
    return commands


def exec_start(unit: Unit, manager: Manager) -> list[Command]:
    """The unit's ExecStart= commands; a Type=simple/exec/notify service has exactly one."""
    table = manager.specifiers(unit)
    commands = [
        c for value in unit.values("Service", "ExecStart") for c in parse_exec(value, table)
    ]
    if not commands:
        raise UnitError(f"{unit.name}: service has no ExecStart=, refusing")
    kind = unit.value("Service", "Type", "simple")
    if kind != "oneshot" and len(commands) > 1:
        raise UnitError(f"{unit.name}: more than one ExecStart= for Type={kind}")
    return commands


def exec_reload(unit: Unit, manager: Manager) -> list[Command]:
    """The unit's ExecReload= commands, run in order by `systemctl reload`
    ($MAINPID in their environment: the main process)."""
    table = manager.specifiers(unit)
    return [c for value in unit.values("Service", "ExecReload") for c in parse_exec(value, table)]


# -- the environment -------------------------------------------------------------------


def replace_env_argv(argv: list[str], environment: dict[str, str]) -> list[str]:
    """systemd.service(5): a word that is `$FOO` becomes the value split at
    whitespace (zero or more words); `${FOO}` anywhere in a word becomes the value
    as it is; `$$` is a `$`; an unset variable is empty."""
    out: list[str] = []
    for word in argv:
        if word.startswith("$") and word[1:2] not in ("{", "$"):
            value = environment.get(word[1:])
            if value is not None:
                out.extend(_split_relaxed(value))
            continue
        out.append(_replace_env(word, environment))
    return out


def _split_relaxed(value: str) -> list[str]:
    """A variable's value split at whitespace, its quotes taken off (EXTRACT_RELAX:
    an unclosed quote runs to the end)."""
    words: list[str] = []
    word: list[str] | None = None
    quote: str | None = None
    for c in value:
        if quote:
            if c == quote:
                quote = None
            else:
                word = (word or []) + [c]
        elif c in WHITESPACE:
            if word is not None:
                words.append("".join(word))
                word = None
        elif c in "'\"":
            quote = c
            word = word or []
        else:
            word = (word or []) + [c]
    if word is not None:
        words.append("".join(word))
    return words


def _replace_env(word: str, environment: dict[str, str]) -> str:
    def variable(match: re.Match[str]) -> str:
        if match[0] == "$$":
            return "$"
        name, operator, alternative = match["name"], match["op"], match["alt"]
        value = environment.get(name)
        if operator == ":-":
            return value if value else alternative
        if operator == ":+":
            return alternative if value else ""
        return value or ""

    return re.sub(
        r"\$\$|\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:[-+])(?P<alt>[^}]*))?\}",
        variable,
        word,
    )


def parse_environment_file(text: str) -> dict[str, str]:
    """The assignments an EnvironmentFile= gives (src/basic/env-file.c, then the
    manager drops invalid names). systemd.exec(5): an unquoted value keeps
    interior whitespace and quotes after its first character, a backslash keeps
    the next character, a trailing one joins the next line; '...' is verbatim;
    "..." knows sh's escapes; `#` or `;` starts a comment line."""
    found: dict[str, str] = {}
    state, key, value = "pre_key", "", ""
    key_end: int | None = None
    value_end: int | None = None

    def push() -> None:
        name = key[:key_end] if key_end is not None else key
        if VALID_NAME.match(name):
            found[name] = value

    for c in text:
        if state == "pre_key":
            if c in COMMENTS:
                state = "comment"
            elif c not in WHITESPACE:
                state, key, key_end = "key", c, None
        elif state == "key":
            if c in NEWLINE:
                state = "pre_key"  # no "=": not an assignment
            elif c == "=":
                state, value, value_end = "pre_value", "", None
            else:
                if c not in WHITESPACE:
                    key_end = None
                elif key_end is None:
                    key_end = len(key)
                key += c
        elif state == "pre_value":
            if c in NEWLINE:
                push()
                state = "pre_key"
            elif c == "'":
                state = "single"
            elif c == '"':
                state = "double"
            elif c == "\\":
                state = "value_escape"
            elif c not in WHITESPACE:
                state, value = "value", value + c
        elif state == "value":
            if c in NEWLINE:
                if value_end is not None:
                    value = value[:value_end]
                push()
                state = "pre_key"
            elif c == "\\":
                state, value_end = "value_escape", None
            else:
                if c not in WHITESPACE:
                    value_end = None
                elif value_end is None:
                    value_end = len(value)
                value += c
        elif state == "value_escape":
            state = "value"
            if c not in NEWLINE:
                value += c
        elif state == "single":
            if c == "'":
                state = "pre_value"
            else:
                value += c
        elif state == "double":
            if c == '"':
                state = "pre_value"
            elif c == "\\":
                state = "double_escape"
            else:
                value += c
        elif state == "double_escape":
            state = "double"
            if c in SHELL_NEED_ESCAPE:
                value += c
            elif c != "\n":
                value += "\\" + c
        elif state == "comment":
            if c == "\\":
                state = "comment_escape"
            elif c in NEWLINE:
                state = "pre_key"
        elif state == "comment_escape":
            state = "pre_key" if c in NEWLINE else "comment"
    if state in ("pre_value", "value", "value_escape", "single", "double", "double_escape"):
        if state == "value" and value_end is not None:
            value = value[:value_end]
        push()
    return found


def environment(
    unit: Unit,
    manager: Manager,
    *,
    read: Callable[[str], str | None],
    base: dict[str, str] | None = None,
) -> dict[str, str]:
    """The environment of the unit's processes: `base` (what the manager passes:
    PATH, HOME, USER...), then Environment=, then each EnvironmentFile= in order,
    the files winning over Environment= whatever the order of the lines.

    `read(path)` gives a file's text on the machine, None when it does not exist.
    """
    table = manager.specifiers(unit)
    result = dict(base) if base is not None else {"PATH": DEFAULT_PATH}
    for value in unit.values("Service", "Environment"):
        for word in split_words(value):
            assignment = resolve_specifiers(word, table)
            name, equals, content = assignment.partition("=")
            if equals and VALID_NAME.match(name):
                result[name] = content  # an invalid one is logged and ignored
    for value in unit.values("Service", "EnvironmentFile"):
        optional = value.startswith("-")
        path = resolve_specifiers(value[1:] if optional else value, table)
        if not path.startswith("/"):
            raise UnitError(f"{unit.name}: EnvironmentFile= must be absolute: {path}")
        text = read(path)
        if text is None:
            if optional:
                continue
            raise UnitError(f"{unit.name}: failed to load environment file {path}")
        result.update(parse_environment_file(text))
    return result


@dataclass(frozen=True)
class WorkingDirectory:
    path: str | None  # None: the manager's default, / for the system manager
    home: bool = False  # "~": the home of User=
    optional: bool = False  # "-": a missing folder is no error


def working_directory(unit: Unit, manager: Manager) -> WorkingDirectory:
    value = unit.value("Service", "WorkingDirectory")
    if not value:
        return WorkingDirectory(path=None)
    optional = value.startswith("-")
    value = value[1:] if optional else value
    if value == "~":
        return WorkingDirectory(path=None, home=True, optional=optional)
    path = resolve_specifiers(value, manager.specifiers(unit))
    if not path.startswith("/"):
        raise UnitError(f"{unit.name}: WorkingDirectory= must be absolute: {path}")
    return WorkingDirectory(path=path, optional=optional)


def directories(unit: Unit, manager: Manager, key: str) -> list[str]:
    """The folders of RuntimeDirectory=, StateDirectory=... (relative names)."""
    table = manager.specifiers(unit)
    names = [
        resolve_specifiers(w, table) for v in unit.values("Service", key) for w in split_words(v)
    ]
    for name in names:
        if name.startswith("/") or ".." in name.split("/"):
            raise UnitError(f"{unit.name}: {key}= takes relative names: {name}")
    return names


def user_environment(user: str) -> dict[str, str]:
    """What the manager sets for User= (HOME, USER, LOGNAME, SHELL)."""
    entry = pwd.getpwnam(user)
    return {
        "HOME": entry.pw_dir,
        "USER": entry.pw_name,
        "LOGNAME": entry.pw_name,
        "SHELL": entry.pw_shell,
    }
