"""deploy/compose.yaml read as compose reads it (YAML with merge keys, then
`${VAR}` from deploy/.env): nginx finds certbot's certificate through its
links, the ACME challenges are served and renewals reach nginx, nginx holds a
node's boards, and the app trusts X-Forwarded-For from nginx alone. `docker
compose config` would check more, but the docker CLI here has no compose
plugin (and CI no engine)."""

from __future__ import annotations

import io
import ipaddress
import re
import shutil
from pathlib import Path
from typing import Any

import dotenv
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent.parent
COMPOSE = ROOT / "deploy" / "compose.yaml"
START = ROOT / "deploy" / "nginx" / "start.sh"
CERT_NAME = "mesa.example.com"


def settings_from_the_docs() -> dict[str, str]:
    """deploy/.env as docs/DEPLOY.md ("With containers") tells the operator to write it."""
    docs = (ROOT / "docs" / "DEPLOY.md").read_text()
    section = docs[docs.index("## With containers") :]
    block = re.search(r"Put the settings in `deploy/\.env`.*?```sh\n(.*?)```", section, re.S)
    assert block, "docs/DEPLOY.md shows deploy/.env"
    values = dotenv.dotenv_values(stream=io.StringIO(block[1]))
    return {name: value or "" for name, value in values.items()}


def interpolate(value: Any, settings: dict[str, str]) -> Any:
    if isinstance(value, str):

        def one(match: re.Match[str]) -> str:
            assert match[1] in settings, f"${{{match[1]}}} is not in the docs' deploy/.env"
            return settings[match[1]]

        return re.sub(r"\$\{(\w+)\}", one, value).replace("$$", "$")
    if isinstance(value, list):
        return [interpolate(item, settings) for item in value]
    if isinstance(value, dict):
        return {key: interpolate(item, settings) for key, item in value.items()}
    return value


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded = yaml.safe_load(COMPOSE.read_text())
    return dict(interpolate(loaded, settings_from_the_docs()))


def mounts(service: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(source, target, read-only) of each short-syntax volume."""
    found = []
    for volume in service.get("volumes", []):
        source, target, *mode = volume.split(":")
        found.append((source, target, mode == ["ro"]))
    return found


def command_line(service: dict[str, Any]) -> str:
    return " ".join([*service.get("entrypoint", []), *service.get("command", [])])


def test_the_file_is_consistent(compose):
    services = compose["services"]
    for name, service in services.items():
        assert "image" in service, name
        for needed in service.get("depends_on", []):
            assert needed in services, (name, needed)
        for source, _target, _ro in mounts(service):
            if not source.startswith(("/", ".")):
                assert source in compose["volumes"], (name, source)


def test_nginx_reaches_the_certificate_through_certbots_links(compose, tmp_path):
    # certbot's layout: live/<name>/*.pem are relative links into ../../archive/.
    host, container = tmp_path / "host", tmp_path / "nginx"
    archive = host / "etc/letsencrypt/archive" / CERT_NAME
    live = host / "etc/letsencrypt/live" / CERT_NAME
    archive.mkdir(parents=True)
    live.mkdir(parents=True)
    for name in ("fullchain", "privkey"):
        (archive / f"{name}1.pem").write_text(name)
        (live / f"{name}.pem").symlink_to(f"../../archive/{CERT_NAME}/{name}1.pem")
    # What the container sees: each host folder mounted is there, links kept
    # as links, so a link resolves inside the container as it would there.
    nginx = compose["services"]["nginx"]
    for source, target, _ro in mounts(nginx):
        if source.startswith("/etc/letsencrypt"):
            shutil.copytree(
                host / source.lstrip("/"), container / target.lstrip("/"), symlinks=True
            )
    for setting, content in (("MESA_TLS_CERT", "fullchain"), ("MESA_TLS_KEY", "privkey")):
        path = container / nginx["environment"][setting].lstrip("/")
        assert path.is_symlink(), setting
        resolved = path.resolve()
        assert resolved.is_relative_to(container) and resolved.exists(), (setting, resolved)
        assert resolved.read_text() == content


def test_acme_challenges_are_served_and_renewals_reach_nginx(compose):
    template = (ROOT / "deploy" / "nginx" / "mesa.conf.template").read_text()
    (webroot,) = re.findall(r"location /\.well-known/acme-challenge/ \{ root ([^;]+); \}", template)
    services = compose["services"]
    served = {source for source, target, _ro in mounts(services["nginx"]) if target == webroot}
    assert served, f"nginx does not mount the challenge folder {webroot}"
    renewers = [
        (name, service)
        for name, service in services.items()
        if "certbot renew" in command_line(service)
    ]
    assert len(renewers) == 1
    name, certbot = renewers[0]
    assert certbot["restart"] == "always"
    written = {(source, target) for source, target, ro in mounts(certbot) if not ro}
    (certbot_webroot,) = [target for source, target in written if source in served]
    assert f"--webroot -w {certbot_webroot}" in command_line(certbot)
    assert ("/etc/letsencrypt", "/etc/letsencrypt") in written
    # nginx reloads on its own when the certificate changed: its image's start
    # (deploy/nginx/start.sh; test_nginx_reloads_only_for_a_renewed_certificate).
    assert "nginx -s reload" in START.read_text()


def test_the_app_trusts_forwarding_from_nginx_alone(compose):
    services = compose["services"]
    (address,) = [network["ipv4_address"] for network in services["nginx"]["networks"].values()]
    (subnet,) = [item["subnet"] for item in compose["networks"]["default"]["ipam"]["config"]]
    assert ipaddress.ip_address(address) in ipaddress.ip_network(subnet)
    apps = {name: s for name, s in services.items() if s.get("image") == "mesa:latest"}
    assert {
        "web",
        "live",
        "beat",
        "worker-bots",
        "worker-sweeps",
        "worker-mail",
        "worker-analysis",
    } <= set(apps)
    for name, service in apps.items():
        trusted = service["environment"]["TRUSTED_PROXIES"].split(",")
        networks = [ipaddress.ip_network(entry.strip(), strict=False) for entry in trusted]
        assert networks == [ipaddress.ip_network(address)], name


def test_nginx_runs_its_own_file_and_holds_a_nodes_boards(compose):
    """nginx runs deploy/nginx/nginx.conf, not the image's (1,024 connections a
    worker: about 500 boards): nginx itself accepts the file, and one of its
    workers holds a node's boards (tests/deploy/test_kit.py's figure) with a
    descriptor for each connection, which the container's nofile allows."""
    import subprocess

    from bench.front import NGINX
    from tests.deploy.test_kit import BOARDS_A_NODE
    from tests.helpers import missing

    nginx = compose["services"]["nginx"]
    [source] = [s for s, target, ro in mounts(nginx) if target == "/etc/nginx/nginx.conf" and ro]
    conf = COMPOSE.parent / source
    text = conf.read_text()
    connections = int(re.search(r"^\s*worker_connections (\d+);", text, re.M)[1])
    open_files = int(re.search(r"^worker_rlimit_nofile (\d+);", text, re.M)[1])
    assert connections >= 2 * BOARDS_A_NODE + 1024
    assert open_files >= connections + 64
    assert nginx["ulimits"]["nofile"] >= open_files
    if not shutil.which(NGINX):
        missing("nginx is not installed (apt-get install nginx; .ci/run does)")
    tested = subprocess.run([NGINX, "-t", "-c", str(conf)], capture_output=True, text=True)
    assert tested.returncode == 0, tested.stderr


def test_nginx_reloads_only_for_a_renewed_certificate(compose, tmp_path):
    """deploy/nginx/start.sh, run with sh as the image runs it (its check every
    0.2 s instead of 12 h, nginx a stand-in that notes how it was called): no
    reload while the certificate stays as it was, one when certbot renews it. A
    reload closes every board's channel, so the boards long poll for a minute."""
    import os
    import signal
    import subprocess
    import time

    if not shutil.which("envsubst"):
        from tests.helpers import missing

        missing("envsubst is not installed (gettext-base; .ci/run installs it)")
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    called = tmp_path / "called"
    (bin_folder / "nginx").write_text(
        f'#!/bin/sh\necho "$@" >> {called}\n[ "$1" = -g ] && exec sleep 60\nexit 0\n'
    )
    (bin_folder / "nginx").chmod(0o755)
    certificate = tmp_path / "fullchain.pem"
    certificate.write_text("the first certificate\n")
    environment = {
        name: str(value) for name, value in compose["services"]["nginx"]["environment"].items()
    }
    run = subprocess.Popen(
        ["sh", str(START)],
        env={
            "PATH": f"{bin_folder}:{os.environ['PATH']}",
            "NGINX_TEMPLATE": str(ROOT / "deploy" / "nginx" / "mesa.conf.template"),
            "NGINX_SITE": str(tmp_path / "mesa.conf"),
            **environment,
            "MESA_TLS_CERT": str(certificate),
            "MESA_RELOAD_CHECK": "0.2",
        },
        start_new_session=True,  # its check loop goes with it
    )

    def calls() -> list[str]:
        return called.read_text().splitlines() if called.exists() else []

    try:
        time.sleep(1.5)  # seven checks of an unchanged certificate
        assert calls() == ["-g daemon off;"]
        certificate.write_text("the renewed certificate\n")
        deadline = time.monotonic() + 10
        while "-s reload" not in calls() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.5)  # and no second reload for the same certificate
        assert calls() == ["-g daemon off;", "-s reload"]
    finally:
        os.killpg(run.pid, signal.SIGTERM)
        run.wait(timeout=10)


def test_nginxs_image_starts_the_site_rendered_from_the_template(compose, tmp_path):
    """The nginx service's image is Debian's nginx with nchan, whose command is
    deploy/nginx/start.sh: run here with sh, as the image runs it, with the
    service's environment (and nginx a stand-in that says how it was called),
    it renders exactly the template's MESA_ placeholders, and nginx accepts
    what it rendered."""
    import os
    import signal
    import subprocess

    from bench.front import NGINX
    from tests.deploy import nginxconf
    from tests.helpers import missing

    nginx = compose["services"]["nginx"]
    dockerfile = (
        COMPOSE.parent / nginx["build"]["context"] / nginx["build"]["dockerfile"]
    ).resolve()
    image = dockerfile.read_text()
    assert "libnginx-mod-nchan" in image and "gettext-base" in image
    assert "COPY deploy/nginx/start.sh /usr/local/bin/mesa-nginx" in image
    assert 'CMD ["sh", "/usr/local/bin/mesa-nginx"]' in image
    [template] = [s for s, target, ro in mounts(nginx) if target.endswith(".template") and ro]
    if not shutil.which("envsubst"):
        missing("envsubst is not installed (gettext-base; .ci/run installs it)")
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    called = tmp_path / "called"
    (bin_folder / "nginx").write_text(f'#!/bin/sh\necho "$@" > {called}\n')
    (bin_folder / "nginx").chmod(0o755)
    site = tmp_path / "mesa.conf"
    environment = {name: str(value) for name, value in nginx["environment"].items()}
    run = subprocess.Popen(
        ["sh", str(START)],
        env={
            "PATH": f"{bin_folder}:{os.environ['PATH']}",
            "NGINX_TEMPLATE": str(COMPOSE.parent / template),
            "NGINX_SITE": str(site),
            **environment,
        },
        start_new_session=True,  # its reload loop goes with it
    )
    try:
        run.wait(timeout=30)
    finally:
        os.killpg(run.pid, signal.SIGTERM)
    assert run.returncode == 0
    assert called.read_text().strip() == "-g daemon off;"
    text = (COMPOSE.parent / template).read_text()
    placeholders = set(re.findall(r"\$\{(MESA_\w+)\}", text))
    assert placeholders <= set(environment), placeholders - set(environment)
    expected = nginxconf.render(text, {name: environment[name] for name in placeholders})

    def directives(conf: str) -> list[str]:
        # envsubst fills a bare $MESA_NAME too, which only the comments have.
        return [line for line in conf.splitlines() if not line.lstrip().startswith("#")]

    assert directives(site.read_text()) == directives(expected)
    if not shutil.which(NGINX):
        missing("nginx is not installed (apt-get install nginx; .ci/run does)")
    # Its names and files are the container's: nginx -t on this machine's own.
    here = {
        **{name: environment[name] for name in placeholders},
        "MESA_HTTP_LISTEN": "127.0.0.1:18680",
        "MESA_HTTPS_LISTEN": "127.0.0.1:18681",
        "MESA_PUBLISH_LISTEN": "127.0.0.1:18682",
        "MESA_TLS_CERT": str(tmp_path / "cert.pem"),
        "MESA_TLS_KEY": str(tmp_path / "key.pem"),
        "MESA_LOG_DIR": str(tmp_path / "logs"),
        "MESA_UPSTREAM": "127.0.0.1:18683",
        "MESA_LIVE_UPSTREAM": "127.0.0.1:18684",
    }
    nginxconf.certificate(tmp_path, "mesa.example.com")
    (tmp_path / "mesa.conf").write_text(nginxconf.render(text, here))
    conf = nginxconf.write_nginx_conf(tmp_path)
    tested = subprocess.run(
        [NGINX, "-t", "-p", str(tmp_path), "-c", str(conf)], capture_output=True, text=True
    )
    assert tested.returncode == 0, tested.stderr
