"""games.lib.errors: every refusal has a code, a status and a sentence in Spanish and English."""

import re
from pathlib import Path

import pytest
from django.utils import translation

from games import services
from games.lib import errors

GAMES = Path(services.__file__).parent.parent
ENGINE = GAMES / "engine"
SERVICE_SOURCES = [*(GAMES / "services").glob("*.py"), *(GAMES / "selectors").glob("*.py")]


def codes_in(paths, pattern):
    found = set()
    for path in paths:
        found |= set(re.findall(pattern, path.read_text()))
    return found


def test_every_engine_refusal_has_a_sentence():
    codes = codes_in(ENGINE.glob("*.py"), r'Illegal(?:Move|Action)\(\s*"([a-z_]+)"')
    assert codes, "the engine raises coded errors"
    assert codes - set(errors.MESSAGES) == set()


def test_every_service_refusal_has_a_sentence():
    pattern = r'(?:BadInput|Conflict|IllegalMoveError|NotFound|NotSeatHolder)\(\s*"([a-z_]+)"'
    codes = codes_in(SERVICE_SOURCES, pattern)
    assert codes - set(errors.MESSAGES) == set()


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (errors.BadInput(), 400),
        (errors.NotSeatHolder(), 403),
        (errors.NotFound(), 404),
        (errors.Conflict(), 409),
        (errors.IllegalMoveError(), 422),
    ],
)
def test_each_kind_of_refusal_has_its_status_and_a_default_sentence(error, status):
    assert error.status == status
    assert str(error.message)


def test_an_unknown_code_still_reads_as_a_sentence_not_a_developer_note():
    error = errors.IllegalMoveError("brand_new_rule", "the rule engine said no in English")
    assert str(error.message) == str(errors.MESSAGES["illegal_play"])


def test_the_sentences_are_spanish_first_and_translated(settings):
    message = errors.Conflict("stale_version").message
    with translation.override("es"):
        assert str(message).startswith("La partida cambió")
    with translation.override("en"):
        english = str(message)
    assert english and not english.startswith("La partida cambió")
