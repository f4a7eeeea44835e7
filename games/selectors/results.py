"""Each finished game put into words: who won, how many points, and how.

The board and the history show these sentences as they come; they are built
here, in the request's language, so the plural forms ("1 punto", "2 puntos")
and the words for a gammon come from the catalogs and not from the browser.
"""

from typing import TypedDict

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import Ending, EndReason, Format, GameResult, MatchState, Phase, WinKind


class GameResultWords(TypedDict):
    """A finished game's result in data and in words (the room state's games[].result)."""

    winner: int
    points: int
    kind: str | None
    ending: str
    score: list[int]
    text: str
    score_text: str


class ResignOfferWords(TypedDict):
    """One resignation the table may offer or answer now: what it is worth at the cube."""

    value: int  # 1 single, 2 gammon, 3 backgammon
    points: int
    score: list[int] | None  # the match's score if it is accepted (None outside a match)
    text: str


# A resignation can be offered or answered in these phases.
_RESIGN_PHASES = frozenset({Phase.ROLL, Phase.MOVE, Phase.RESIGN_OFFERED})


def resign_offers(state: MatchState, names: dict[int, str]) -> list[ResignOfferWords]:
    """Each resignation's worth now, as the engine scores it (cube, Jacoby, partida simple),
    and in a match the score it leaves; [] when no game is being played.

    The side on roll is the one who offers (and who offered, while the other answers).
    """
    if state.phase not in _RESIGN_PHASES:
        return []
    winner = 1 - state.on_roll
    single = state.rules.format == Format.SINGLE
    offers: list[ResignOfferWords] = []
    for kind in (WinKind.SINGLE,) if single else tuple(WinKind):
        points = state.score_value(kind)
        after: list[int] | None = None
        words: dict[str, object] = {"kind": _RESIGN_KINDS[kind](), "count": points}
        if state.rules.format == Format.MATCH:
            after = list(state.score)
            after[winner] += points
            if after[winner] >= state.rules.length:
                text = ngettext(
                    "%(kind)s, %(count)s punto (%(name)s ganaría el encuentro)",
                    "%(kind)s, %(count)s puntos (%(name)s ganaría el encuentro)",
                    points,
                ) % {**words, "name": names.get(winner, "?")}
            else:
                text = ngettext(
                    "%(kind)s, %(count)s punto (el marcador quedaría %(a)s %(x)s, %(b)s %(y)s)",
                    "%(kind)s, %(count)s puntos (el marcador quedaría %(a)s %(x)s, %(b)s %(y)s)",
                    points,
                ) % {**words, **_score_words((after[0], after[1]), names)}
        else:
            text = (
                ngettext("%(kind)s, %(count)s punto", "%(kind)s, %(count)s puntos", points) % words
            )
        offers.append({"value": int(kind), "points": points, "score": after, "text": text})
    return offers


_RESIGN_KINDS = {
    WinKind.SINGLE: lambda: _("partida simple"),
    WinKind.GAMMON: lambda: _("gammon"),
    WinKind.BACKGAMMON: lambda: _("backgammon"),
}


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


def match_outcome(state: MatchState, names: dict[int, str]) -> str | None:
    """How a finished match ended, in one sentence; None while it is played.

    A match given up (abandoned, or lost by absence) says who gave it up, the
    score at that moment and what the winner gets: the match, and no points
    for the game that was being played (the engine scores a forfeit nothing).
    """
    rules = state.rules
    if state.winner is None:
        if state.end_reason == EndReason.STOP:
            return _("La sesión terminó empatada: %(a)s %(x)s, %(b)s %(y)s.") % _score_words(
                state.score, names
            )
        return None
    if state.end_reason in (EndReason.RESIGN, EndReason.ABSENCE):
        return forfeit_sentence(state, names)
    words = {
        "name": names.get(state.winner, "?"),
        "won": state.score[state.winner],
        "lost": state.score[1 - state.winner],
    }
    if rules.format == Format.SINGLE:
        return _("%(name)s gana la partida.") % words
    if rules.format == Format.SESSION:
        return _("%(name)s gana la sesión, %(won)s a %(lost)s.") % words
    return _("%(name)s gana el encuentro, %(won)s a %(lost)s.") % words


def forfeit_sentence(state: MatchState, names: dict[int, str]) -> str | None:
    """The end of a match given up, or None when it ended otherwise."""
    if state.winner is None or state.end_reason not in (EndReason.RESIGN, EndReason.ABSENCE):
        return None
    rules = state.rules
    absent = state.end_reason == EndReason.ABSENCE
    words: dict[str, object] = {
        "loser": names.get(1 - state.winner, "?"),
        "name": names.get(state.winner, "?"),
        "game": state.game_number,
        "length": rules.length,
        **_score_words(state.score, names),
    }
    if rules.format == Format.SINGLE:
        if absent:
            return _("%(loser)s perdió la partida por ausencia: la gana %(name)s.") % words
        return _("%(loser)s abandonó la partida: la gana %(name)s.") % words
    # Given up during a game (not between two of a session): that game scores nothing.
    during = bool(state.games) and state.games[-1].ending == Ending.FORFEIT
    if rules.format == Format.SESSION:
        if absent:
            sentence = _(
                "%(loser)s perdió la sesión por ausencia en la partida %(game)s, con "
                "%(a)s %(x)s, %(b)s %(y)s: %(name)s gana la sesión."
            )
        else:
            sentence = _(
                "%(loser)s abandonó la sesión en la partida %(game)s, con "
                "%(a)s %(x)s, %(b)s %(y)s: %(name)s gana la sesión."
            )
    elif absent:
        sentence = _(
            "%(loser)s perdió el encuentro por ausencia en la partida %(game)s, con "
            "%(a)s %(x)s, %(b)s %(y)s (a %(length)s puntos): %(name)s gana el encuentro."
        )
    else:
        sentence = _(
            "%(loser)s abandonó el encuentro en la partida %(game)s, con "
            "%(a)s %(x)s, %(b)s %(y)s (a %(length)s puntos): %(name)s gana el encuentro."
        )
    if not during:
        return sentence % words
    return " ".join((sentence % words, _("La partida que se jugaba no suma puntos.")))


def _score_words(score: tuple[int, int], names: dict[int, str]) -> dict[str, object]:
    return {"a": names.get(0, "?"), "x": score[0], "b": names.get(1, "?"), "y": score[1]}
