"""tests/deploy/systemd.py reads units as systemd does: the examples of
systemd.syntax(7), systemd.unit(5), systemd.service(5) and systemd.exec(5)."""

from __future__ import annotations

import shlex
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from tests.helpers import missing

from . import systemd

ROOT = Path(__file__).resolve().parent.parent.parent

MANAGER = systemd.Manager(hostname="mesa-1.example.com")


def unit(text: str, name: str = "mesa-test.service") -> systemd.Unit:
    return systemd.Unit(
        name=name, path=f"/etc/systemd/system/{name}", sections=systemd.parse_unit_text(text)
    )


def argv(text: str, environment: dict[str, str] | None = None, name: str = "x.service"):
    loaded = unit(text, name)
    [command] = systemd.exec_start(loaded, MANAGER)
    env = systemd.environment(loaded, MANAGER, read=lambda path: None, base={})
    env.update(environment or {})
    return command.expanded(env)


def test_a_trailing_backslash_joins_lines_and_comments_inside_are_skipped():
    # systemd.syntax(7)'s example.
    sections = systemd.parse_unit_text(
        "[Section A]\n"
        "KeyOne=value 1\n"
        "KeyTwo=value 2\n"
        "\n"
        "# a comment\n"
        "\n"
        "[Section B]\n"
        'Setting="something" "some thing" "…"\n'
        "KeyTwo=value 2 \\\n"
        "       value 2 continued\n"
        "\n"
        "[Section C]\n"
        "KeyThree=value 3\\\n"
        "# this line is ignored\n"
        "; this line is ignored too\n"
        "       value 3 continued\n"
    )
    assert sections["Section A"] == [("KeyOne", "value 1"), ("KeyTwo", "value 2")]
    assert systemd.split_words(dict(sections["Section B"])["Setting"]) == [
        "something",
        "some thing",
        "…",
    ]
    assert dict(sections["Section B"])["KeyTwo"].split() == "value 2 value 2 continued".split()
    assert dict(sections["Section C"])["KeyThree"].split() == "value 3 value 3 continued".split()


def test_two_backslashes_end_a_line_without_joining_it():
    sections = systemd.parse_unit_text("[Service]\nA=x\\\\\nB=y\n")
    assert sections["Service"] == [("A", "x\\\\"), ("B", "y")]


def test_an_empty_assignment_resets_a_list_and_a_drop_in_comes_after(tmp_path):
    main = tmp_path / "a.service"
    main.write_text("[Service]\nEnvironmentFile=/etc/one\nEnvironmentFile=/etc/two\n")
    (tmp_path / "10-reset.conf").write_text("[Service]\nEnvironmentFile=\n")
    (tmp_path / "20-mine.conf").write_text("[Service]\nEnvironmentFile=/etc/three\n")
    loaded = systemd.load_unit(
        main, drop_ins=[tmp_path / "20-mine.conf", tmp_path / "10-reset.conf"]
    )
    assert loaded.values("Service", "EnvironmentFile") == ["/etc/three"]


def test_double_percent_is_a_percent_and_an_unknown_specifier_refuses_the_unit():
    table = MANAGER.specifiers(unit("[Service]\n", "mesa-worker-bots.service"))
    assert systemd.resolve_specifiers("bots@%%h", table) == "bots@%h"
    assert systemd.resolve_specifiers("bots@%%H", table) == "bots@%H"
    assert systemd.resolve_specifiers("bots@%H", table) == "bots@mesa-1.example.com"
    assert systemd.resolve_specifiers("%l %n %N %p %t %S", table) == (
        "mesa-1 mesa-worker-bots.service mesa-worker-bots mesa-worker-bots /run /var/lib"
    )
    assert systemd.resolve_specifiers("100%", table) == "100%"  # a stray one at the end
    with pytest.raises(systemd.UnitError, match="unknown specifier %Z"):
        systemd.resolve_specifiers("bots@%Z", table)
    with pytest.raises(systemd.UnitError):
        argv("[Service]\nExecStart=/bin/echo %Z\n")


def test_the_system_managers_specifiers_name_root_not_the_services_user():
    # systemd.unit(5): %u and %h are the manager's (root), whatever User= says.
    loaded = unit("[Service]\nUser=mesa\n", "getty@tty1.service")
    table = MANAGER.specifiers(loaded)
    assert systemd.resolve_specifiers("%u %U %h %g", table) == "root 0 /root root"
    assert systemd.resolve_specifiers("%i %I %p %f %y", table) == (
        "tty1 tty1 getty /tty1 /etc/systemd/system/getty@tty1.service"
    )


def test_environment_variables_in_a_command_line():
    # systemd.service(5) "COMMAND LINES", first example.
    assert argv(
        "[Service]\nEnvironment=\"ONE=one\" 'TWO=two two'\nExecStart=echo $ONE $TWO ${TWO}\n"
    ) == [
        "/usr/bin/echo" if Path("/usr/bin/echo").exists() else "/bin/echo",
        "one",
        "two",
        "two",
        "two two",
    ]


def test_a_variable_as_a_word_is_split_and_unquoted_within_a_word_it_stays_whole():
    # systemd.service(5)'s second example, without its ONE.
    text = (
        "[Service]\nEnvironment=\"TWO='two two' too\" THREE=\nExecStart=/bin/echo ${TWO} ${THREE}\n"
    )
    assert argv(text) == ["/bin/echo", "'two two' too", ""]
    text = "[Service]\nEnvironment=\"TWO='two two' too\" THREE=\nExecStart=/bin/echo $TWO $THREE\n"
    assert argv(text) == ["/bin/echo", "two two", "too"]
    assert argv("[Service]\nExecStart=/bin/echo $$HOME a$${X}b $UNSET\n") == [
        "/bin/echo",
        "$HOME",
        "a${X}b",
    ]


def test_the_prefixes_of_a_command():
    loaded = unit("[Service]\nExecStart=-/bin/false\n")
    [command] = systemd.exec_start(loaded, MANAGER)
    assert command.ignore_failure and command.argv == ("/bin/false",)
    [command] = systemd.exec_start(unit("[Service]\nExecStart=:/bin/echo $HOME\n"), MANAGER)
    assert command.expanded({"HOME": "/root"}) == ["/bin/echo", "$HOME"]


def test_quotes_and_c_escapes_in_a_command_line():
    # \s is a space; an unknown escape such as "\ " is kept as written (with a warning).
    assert argv(
        '[Service]\nExecStart=/bin/echo "a b" \'c d\' e\\sf e\\ f g"h i"j \\x41 "\\t"\n'
    ) == [
        "/bin/echo",
        "a b",
        "c d",
        "e f",
        "e\\ f",
        "gh ij",
        "A",
        "\t",
    ]
    with pytest.raises(systemd.UnitError, match="unbalanced"):
        argv('[Service]\nExecStart=/bin/echo "open\n')


def test_a_lone_semicolon_separates_commands_and_an_escaped_one_is_an_argument():
    loaded = unit("[Service]\nType=oneshot\nExecStart=/bin/echo a \\; b ; /bin/echo c\n")
    commands = systemd.exec_start(loaded, MANAGER)
    assert [c.argv for c in commands] == [("/bin/echo", "a", ";", "b"), ("/bin/echo", "c")]
    with pytest.raises(systemd.UnitError, match="more than one"):
        systemd.exec_start(unit("[Service]\nExecStart=/bin/a ; /bin/b\n"), MANAGER)
    with pytest.raises(systemd.UnitError, match="no ExecStart"):
        systemd.exec_start(unit("[Service]\nType=simple\n"), MANAGER)


ENV_FILE = """\
# a comment
; another
FOO=bar
  SPACED  =  value with  inner  spaces \t\t
QUOTED="a \\"b\\" \\$c \\n"
SINGLE='it''s \\n'
CONTINUED=one\\
two
ESCAPED=back\\\\slash \\#not-a-comment
INNER=a"b"c
BAD-NAME=x
no equals sign here
EMPTY=
FROM="Mesa <mesa@mesa.example.com>"
"""


def test_an_environment_file_is_read_as_systemd_exec_documents():
    assert systemd.parse_environment_file(ENV_FILE) == {
        "FOO": "bar",
        "SPACED": "value with  inner  spaces",
        "QUOTED": 'a "b" $c \\n',
        "SINGLE": "its \\n",
        "CONTINUED": "onetwo",
        "ESCAPED": "back\\slash #not-a-comment",
        "INNER": 'a"b"c',
        "EMPTY": "",
        "FROM": "Mesa <mesa@mesa.example.com>",
    }


def test_environment_files_override_environment_in_their_order():
    files = {"/etc/a.env": "X=from-a\nY=from-a\n", "/etc/b.env": "Y=from-b\n"}
    loaded = unit(
        "[Service]\n"
        "EnvironmentFile=/etc/a.env\n"
        "Environment=X=inline Z=inline\n"
        "EnvironmentFile=-/etc/missing.env\n"
        "EnvironmentFile=/etc/b.env\n"
    )
    env = systemd.environment(loaded, MANAGER, read=files.get, base={})
    assert env == {"X": "from-a", "Y": "from-b", "Z": "inline"}
    loaded = unit("[Service]\nEnvironmentFile=/etc/missing.env\n")
    with pytest.raises(systemd.UnitError, match="environment file"):
        systemd.environment(loaded, MANAGER, read=files.get, base={})


def test_working_directory_and_runtime_folders():
    loaded = unit(
        "[Service]\nWorkingDirectory=-/srv/%N\nRuntimeDirectory=mesa mesa-%i\n", "app@one.service"
    )
    folder = systemd.working_directory(loaded, MANAGER)
    assert (folder.path, folder.optional) == ("/srv/app@one", True)
    assert systemd.directories(loaded, MANAGER, "RuntimeDirectory") == ["mesa", "mesa-one"]
    assert systemd.working_directory(unit("[Service]\nWorkingDirectory=~\n"), MANAGER).home


def test_the_host_name_is_this_machines_by_default():
    assert systemd.Manager().hostname == socket.gethostname()


# -- systemd itself, where it is installed: `systemd-analyze verify` loads a unit
# as the manager does (no manager needs to run) and says what it refuses.

SYSTEMD_ANALYZE = shutil.which("systemd-analyze")


def systemd_verify(paths: list[Path], tmp_path: Path) -> subprocess.CompletedProcess:
    """`systemd-analyze verify` in a namespace where /srv/mesa is this checkout
    (verify checks that each ExecStart= program exists)."""
    if not SYSTEMD_ANALYZE:
        missing("systemd-analyze is not installed (Debian's systemd package)")
    (tmp_path / "srv" / "mesa").mkdir(parents=True, exist_ok=True)
    script = f'mount --bind {tmp_path / "srv"} /srv && mount --bind {ROOT} /srv/mesa && exec "$@"'
    command = [SYSTEMD_ANALYZE, "verify", "--man=no", *map(str, paths)]
    result = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh"] + command,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if "unshare" in result.stderr and result.returncode != 0 and not result.stdout:
        missing(f"no mount namespace here: {result.stderr}")
    return result


def test_systemd_loads_every_shipped_unit(tmp_path):
    paths = sorted((ROOT / "deploy" / "systemd").glob("mesa*"))
    result = systemd_verify(paths, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "bad-setting" not in result.stderr and "Failed" not in result.stderr, result.stderr


@pytest.mark.parametrize(
    "word", ["bots@%%h", "bots@%%H", "bots@%H", "bots@%Z", "bots@%%Z", "100%", "%n-%i-%%"]
)
def test_the_reader_refuses_a_command_line_exactly_when_systemd_does(tmp_path, word):
    path = tmp_path / "mesa-probe.service"
    path.write_text(f"[Service]\nExecStart=/bin/echo {word}\n")
    refused_by_systemd = systemd_verify([path], tmp_path).returncode != 0
    loaded = systemd.load_unit(path)
    try:
        systemd.exec_start(loaded, MANAGER)
        refused_here = False
    except systemd.UnitError:
        refused_here = True
    assert refused_here == refused_by_systemd


# systemd's environment.d generator runs alone and reads each file with
# env-file.c, the parser of EnvironmentFile=; it prints what it read, quoted for
# sh. It also expands $VAR in values, which EnvironmentFile= does not: the
# sample it reads has no "$".
GENERATOR = "systemd/user-environment-generators/30-systemd-environment-d-generator"


def generated(config: Path) -> dict[str, str]:
    found = [
        Path(lib) / GENERATOR for lib in ("/usr/lib", "/lib") if (Path(lib) / GENERATOR).exists()
    ]
    if not found:
        missing("systemd is not installed (its environment.d generator)")
    run = subprocess.run(
        [str(found[0])], env={"XDG_CONFIG_HOME": str(config)}, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    return dict(word.split("=", 1) for word in shlex.split(run.stdout))


def test_the_environment_file_reader_agrees_with_systemds_own_parser(tmp_path):
    sample = ENV_FILE.replace("\\$c ", "")
    assert "$" not in sample
    (tmp_path / "with" / "environment.d").mkdir(parents=True)
    (tmp_path / "with" / "environment.d" / "mesa.conf").write_text(sample)
    machine = generated(tmp_path / "without")  # what this machine's own files give
    read = {k: v for k, v in generated(tmp_path / "with").items() if machine.get(k) != v}
    ours = systemd.parse_environment_file(sample)
    # A bare "EMPTY=" is the one difference: the generator (merge_env_file) drops an
    # assignment without a value, EnvironmentFile= (load_env_file) sets it empty.
    assert ours.pop("EMPTY") == ""
    assert read == ours
    assert read["FROM"] == "Mesa <mesa@mesa.example.com>"
