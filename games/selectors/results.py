"""Each finished game put into words: who won, how many points, and how.

The board and the history show these sentences as they come; they are built
here, in the request's language, so the plural forms ("1 punto", "2 puntos")
and the words for a gammon come from the catalogs and not from the browser.
"""

from typing import TypedDict

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import GameResult, WinKind


class GameResultWords(TypedDict):
    """A finished game's result in data and in words (the room state's games[].result)."""

    winner: int
    points: int
    kind: str | None
    ending: str
    score: list[int]
    text: str
    score_text: str


def kind_word(kind: WinKind | None) -> str:
    words: dict[WinKind | None, str] = {
        WinKind.SINGLE: _("simple"),
        WinKind.GAMMON: _("gammon"),
        WinKind.BACKGAMMON: _("backgammon"),
    }
    return words.get(kind, "")


def result_sentence(result: GameResult, names: dict[int, str]) -> str:
    """ "Dani gana 2 puntos (gammon)", with how the game ended when it was not borne off."""
    words = {
        "name": names.get(result.winner, "?"),
        "loser": names.get(1 - result.winner, "?"),
        "count": result.points,
        "kind": kind_word(result.kind),
    }
    if result.ending == "drop":
        sentence = ngettext(
            "%(name)s gana %(count)s punto: %(loser)s rechazó el cubo",
            "%(name)s gana %(count)s puntos: %(loser)s rechazó el cubo",
            result.points,
        )
    elif result.ending == "resign":
        sentence = ngettext(
            "%(name)s gana %(count)s punto (%(kind)s): %(loser)s se rindió",
            "%(name)s gana %(count)s puntos (%(kind)s): %(loser)s se rindió",
            result.points,
        )
    else:
        sentence = ngettext(
            "%(name)s gana %(count)s punto (%(kind)s)",
            "%(name)s gana %(count)s puntos (%(kind)s)",
            result.points,
        )
    return sentence % words


def score_sentence(score: tuple[int, int], names: dict[int, str]) -> str:
    return _("Marcador: %(a)s %(x)s, %(b)s %(y)s") % {
        "a": names.get(0, "?"),
        "x": score[0],
        "b": names.get(1, "?"),
        "y": score[1],
    }


def game_results(
    results: tuple[GameResult, ...], names: dict[int, str]
) -> dict[int, GameResultWords]:
    """Per game number: the result in words and in data, with the score it left.

    A forfeit ends the whole match and scores nothing: the match's own result
    says it, so it has no line here.
    """
    described: dict[int, GameResultWords] = {}
    score = [0, 0]
    for result in results:
        if result.ending == "forfeit":
            continue
        score[result.winner] += result.points
        after = (score[0], score[1])
        described[result.number] = {
            "winner": result.winner,
            "points": result.points,
            "kind": kind_word_key(result.kind),
            "ending": result.ending,
            "score": list(after),
            "text": result_sentence(result, names),
            "score_text": score_sentence(after, names),
        }
    return described


def kind_word_key(kind: WinKind | None) -> str | None:
    return None if kind is None else kind.name.lower()
