"""make chaos decides as the real board and push sender do (scripts/chaos/polling.py)."""

import socket

from scripts.chaos.polling import FAST, SLOW, Owed, from_the_gateway, next_poll, sender_gone


def test_a_held_or_changed_answer_is_followed_at_once():
    assert next_poll(9.0, changed=True, took=0.1, failed=False) == (FAST, 0.0)
    assert next_poll(9.0, changed=False, took=25.0, failed=False) == (FAST, 0.0)


def test_a_quick_answer_without_news_backs_off_to_the_slow_pace():
    delay, pauses = FAST, []
    for _ in range(12):
        delay, pause = next_poll(delay, changed=False, took=0.05, failed=False)
        pauses.append(pause)
    assert pauses[:3] == [1.5, 2.25, 3.375]
    assert pauses[-1] == SLOW


def test_an_error_waits_the_slow_pace_as_the_board_does():
    assert next_poll(FAST, changed=False, took=0.0, failed=True) == (SLOW, SLOW)


def test_a_board_sees_every_move_up_to_the_version_it_shows():
    owed = Owed()
    owed.owe(5, acknowledged=100.0)
    owed.owe(6, acknowledged=101.0)
    owed.owe(8, acknowledged=102.0)
    owed.saw(6, at=103.5)
    assert owed.late == [3.5, 2.5]
    assert owed.waiting == [(8, 102.0)]
    owed.saw(9, at=101.0)  # shown before the mover heard back: not late
    assert owed.late[-1] == 0.0 and not owed.waiting


def test_a_move_the_board_showed_before_its_acknowledgement_is_seen_at_once():
    owed = Owed()
    owed.saw(7, at=50.0)
    owed.owe(7, acknowledged=50.2)
    assert owed.late == [0.0] and not owed.waiting


def test_nginx_pages_are_the_gateways_and_json_is_the_apps():
    assert from_the_gateway(502, b"<html><head><title>502 Bad Gateway</title>")
    assert from_the_gateway(504, b"")
    assert not from_the_gateway(502, b'{"error": {"code": "x"}}')
    assert not from_the_gateway(503, b"<html>")


def test_a_push_sender_that_closed_its_end_is_gone_and_a_waiting_one_is_not():
    server, sender = socket.socketpair()
    with server, sender:
        assert not sender_gone(server)
        sender.close()  # what the kernel does for a SIGKILLed worker
        assert sender_gone(server)
