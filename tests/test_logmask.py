"""Private-link tokens never reach a log line whole (config.logmask)."""

import logging
from datetime import timedelta
from types import SimpleNamespace

import pytest

from config.gunicorn_log import AccessLogger
from config.logmask import MaskTokens, mask

SECRET = "Zx-_9abcDEFsecret"


@pytest.mark.parametrize(
    ("line", "masked"),
    [
        (f"GET /mesa/ab12cd/asiento/{SECRET}/ HTTP/1.1", "GET /mesa/ab12cd/asiento/***/ HTTP/1.1"),
        (f"/cuenta/correo/confirmar/{SECRET}:1tY:abc/", "/cuenta/correo/confirmar/***/"),
        (f"/cuenta/correo/baja/{SECRET}/", "/cuenta/correo/baja/***/"),
        (f"/cuenta/clave/nueva/MQ/{SECRET}/", "/cuenta/clave/nueva/***/"),
        ("/cuenta/clave/nueva/MQ/set-password/", "/cuenta/clave/nueva/***/"),
        (
            f"/cuenta/entrar/?next=%2Fmesa%2Fab12cd%2Fasiento%2F{SECRET}%2F",
            "/cuenta/entrar/?next=%2Fmesa%2Fab12cd%2Fasiento%2F***%2F",
        ),
    ],
)
def test_each_kind_of_private_link_is_masked(line, masked):
    assert mask(line) == masked


@pytest.mark.parametrize(
    "line",
    [
        "/mesa/ab12cd/",
        "/mesa/ab12cd/mi-asiento/",
        "/cuenta/correo/confirmar/",
        "/cuenta/clave/nueva/lista/",
    ],
)
def test_pages_without_a_secret_are_left_alone(line):
    assert mask(line) == line


def test_django_log_lines_pass_through_the_mask():
    record = logging.LogRecord(
        "django.request",
        logging.WARNING,
        __file__,
        1,
        "Not Found: %s",
        (f"/mesa/x/asiento/{SECRET}/",),
        None,
    )
    assert MaskTokens().filter(record)
    assert record.getMessage() == "Not Found: /mesa/x/asiento/***/"


def test_the_gunicorn_access_line_names_the_client_and_masks_the_path_and_referer(monkeypatch):
    monkeypatch.setenv("TRUSTED_PROXIES", "127.0.0.1")
    path = f"/mesa/ab12cd/asiento/{SECRET}/"
    environ = {
        "REQUEST_METHOD": "GET",
        "RAW_URI": path,
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_X_FORWARDED_FOR": "1.2.3.4, 198.51.100.7",
        "HTTP_REFERER": f"https://mesa.example.com{path}",
    }
    response = SimpleNamespace(status="302 Found", sent=0, headers=[])
    request = SimpleNamespace(headers=[("REFERER", environ["HTTP_REFERER"])])
    logger = AccessLogger.__new__(AccessLogger)
    atoms = logger.atoms(response, request, environ, timedelta(milliseconds=3))
    assert atoms["h"] == "198.51.100.7"
    assert SECRET not in repr(atoms)
    assert atoms["r"] == "GET /mesa/ab12cd/asiento/***/ HTTP/1.1"
