"""deploy/nginx/mesa.conf.template rendered and wrapped in an nginx.conf that
runs from a folder (`nginx -p <dir> -c <conf>`, not a daemon), with a
throwaway certificate: for tests/deploy/conftest.py's front and for
`make load` (bench/front.py), which both start Debian's nginx with it."""

from __future__ import annotations

import getpass
import os
import subprocess
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parent.parent.parent / "deploy/nginx/mesa.conf.template"
# The template's boards wait in nchan (Debian's libnginx-mod-nchan, which .ci/run
# installs); Debian's own nginx.conf loads it from modules-enabled, this one here.
NCHAN_MODULE = Path("/usr/lib/nginx/modules/ngx_nchan_module.so")


def channel_values(publish_port: int) -> dict[str, str]:
    """The template's channel placeholders for a front on this machine: its nchan
    publisher on 127.0.0.1:`publish_port` (the app's LIVE_NCHAN_URL names
    publish_url(publish_port))."""
    return {
        "MESA_PUBLISH_LISTEN": f"127.0.0.1:{publish_port}",
        "MESA_PUBLISH_FROM": "127.0.0.1",
    }


def publish_url(publish_port: int) -> str:
    return f"http://127.0.0.1:{publish_port}/rooms/"


def render(template: str, values: dict[str, str]) -> str:
    for name, value in values.items():
        template = template.replace("${" + name + "}", value)
    assert "${MESA_" not in template, "a placeholder of the template was left unfilled"
    return template


def certificate(folder: Path, host: str) -> None:
    """A throwaway certificate for `host` and 127.0.0.1: cert.pem and key.pem in `folder`."""
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-days", "2", "-subj", f"/CN={host}",
            "-addext", f"subjectAltName=DNS:{host},IP:127.0.0.1",
            "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem"),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip


def write_nginx_conf(
    folder: Path,
    *,
    worker_connections: int = 1024,
    worker_processes: int = 1,
    open_files: int | None = None,
    http_extra: str = "",
) -> Path:
    """nginx.conf in `folder` around the site rendered into folder/mesa.conf: its pid,
    error log (folder/logs) and temporary files (folder/temp) in `folder` too.
    `http_extra` goes into the http block after the site; `open_files` is each
    worker's worker_rlimit_nofile (by default what its connections need)."""
    temp = folder / "temp"
    temp.mkdir(exist_ok=True)
    (folder / "logs").mkdir(exist_ok=True)
    user = f"user {getpass.getuser()};" if os.geteuid() == 0 else ""
    files = ""
    if open_files is not None:
        files = f"worker_rlimit_nofile {open_files};"
    elif worker_connections > 1024:
        # Each connection is a descriptor, the listening sockets and logs a few more.
        files = f"worker_rlimit_nofile {worker_connections + 64};"
    (folder / "nginx.conf").write_text(
        f"""load_module {NCHAN_MODULE};
{user}
worker_processes {worker_processes};
{files}
pid {folder}/nginx.pid;
error_log {folder}/logs/error.log warn;
events {{ worker_connections {worker_connections}; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    access_log off;
    include {folder}/mesa.conf;
{http_extra}
}}
"""
    )
    return folder / "nginx.conf"
