"""make chaos's clients decide as the real ones do (scripts/chaos/polling.py)."""

from scripts.chaos.polling import from_the_gateway


def test_nginx_pages_are_the_gateways_and_json_is_the_apps():
    assert from_the_gateway(502, b"<html><head><title>502 Bad Gateway</title>")
    assert from_the_gateway(504, b"")
    assert not from_the_gateway(502, b'{"error": {"code": "x"}}')
    assert not from_the_gateway(503, b"<html>")
