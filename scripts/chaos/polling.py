"""What the harness's clients decide without a server: nginx's own error pages.
Pure, and free of the run's settings (scripts.chaos.env): tests/test_chaos_polling.py."""


def from_the_gateway(status: int, body: bytes) -> bool:
    """nginx's own answer for an upstream that died mid-request (its HTML page), not
    the app's (always JSON on the API): for the board, the same as a dropped
    connection, the app never answered."""
    return status in (502, 504) and not body.lstrip().startswith(b"{")
