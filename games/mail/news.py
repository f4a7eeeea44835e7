"""What an "Es tu turno" email says: what happened since the reader last acted.

Read from the Turn rows of the match's current game, never guessed: the
opponent's play in notation with its dice, a double to answer, a resignation
offered, a declined resignation, a taken double, a game or a rematch that
just started (with its opening roll), and before it the reader's written
answer when the table played it and the turn came straight back. Then the
score and the deadline in the reader's time zone. Nothing here writes; the
words are in the templates (templates/emails/your_turn*) and in
`sentence`/`subject` below, in the language active when they are called.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import TypedDict
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.db.models import Q
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import CONDITIONAL, ActionKind, Format, MatchRules, MatchState, Phase, WinKind
from games.lib import clock
from games.models import Game, Match, Seat, Turn
from games.selectors import vacations

# What happened, in the order of the checks in `turn_news`.
DOUBLED = "doubled"  # the opponent doubles: take or drop
RESIGN_OFFERED = "resign_offered"  # the opponent offers to resign: accept or play on
RESIGN_DECLINED = "resign_declined"  # the opponent declined the reader's resignation
TOOK = "took"  # the opponent took the reader's double
MOVED = "moved"  # the opponent played
BLOCKED = "blocked"  # the opponent rolled and could not move
NEW_GAME = "new_game"  # the next game of the match or session began
REMATCH = "rematch"  # the rematch began
FIRST_GAME = "first_game"  # the match began (the reader starts)

UTC = ZoneInfo("UTC")


def zone_of(name: str | None) -> tzinfo:
    """The reader's time zone by its IANA name; UTC when unknown or unset."""
    if not name:
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


@dataclass(frozen=True)
class TurnNews:
    kind: str
    opponent: str
    format: str  # "single", "match" or "session"
    length: int | None  # the points of a match
    mine: int  # the reader's score (0 in a partida simple)
    theirs: int
    game_number: int
    match_number: int
    dice: str | None = None  # the opponent's roll ("6-4"), or the reader's, already rolled
    play: str | None = None  # the opponent's play in notation
    cube: int | None = None  # what the cube would be (a double) or is (a take)
    resign_points: int | None = None
    resign_kind: int | None = None  # 1 single, 2 gammon, 3 backgammon
    opening: tuple[int, int] | None = None  # (the reader's die, the opponent's) when a game began
    my_dice: str | None = None  # the table already rolled for the reader
    deadline: datetime | None = None  # aware, in the reader's zone; None against a bot
    zone: str = "UTC"
    # The end of the reader's vacation, in their zone, while it runs: their clock
    # stands still until then, and `deadline` counts from it.
    away_until: datetime | None = None
    # The reader's written answer the table played when the opponent doubled
    # ("take", "drop", "beaver"), when the turn came straight back with it.
    answered: str | None = None
    answered_cube: int | None = None  # the value the opponent doubled to

    # --- words ----------------------------------------------------------------

    def sentence(self) -> str:
        """What happened, in one to three sentences."""
        said = self._happened()
        if self.answered is None:
            return said
        return answer_sentence(self.answered, self.opponent, self.answered_cube or 2) + " " + said

    def _happened(self) -> str:
        name = self.opponent
        if self.kind == DOUBLED:
            return _("%(name)s te dobla: si aceptas, la partida pasa a valer %(value)s.") % {
                "name": name,
                "value": self.cube,
            }
        if self.kind == RESIGN_OFFERED:
            return ngettext(
                "%(name)s ofrece rendirse y darte %(points)s punto (%(what)s).",
                "%(name)s ofrece rendirse y darte %(points)s puntos (%(what)s).",
                self.resign_points or 1,  # set whenever a resignation is offered
            ) % {"name": name, "points": self.resign_points, "what": resign_word(self.resign_kind)}
        if self.kind == RESIGN_DECLINED:
            return _("%(name)s rechazó tu rendición: la partida sigue.") % {"name": name}
        if self.kind == TOOK:
            return _("%(name)s aceptó tu cubo: la partida vale ahora %(value)s.") % {
                "name": name,
                "value": self.cube,
            }
        if self.kind == MOVED:
            return _("%(name)s jugó %(dice)s: %(play)s.") % {
                "name": name,
                "dice": self.dice,
                "play": self.play,
            }
        if self.kind == BLOCKED:
            return _("%(name)s sacó %(dice)s y no pudo mover.") % {"name": name, "dice": self.dice}
        if self.kind == REMATCH:
            start = _("Empieza la revancha contra %(name)s.") % {"name": name}
        elif self.kind == NEW_GAME:
            start = _("Empieza la partida %(number)s contra %(name)s.") % {
                "number": self.game_number,
                "name": name,
            }
        else:
            start = _("Empieza la partida contra %(name)s.") % {"name": name}
        if self.opening is None:
            return start
        mine, theirs = self.opening
        return (
            start
            + " "
            + _(
                "Salida: tú sacas %(mine)s y %(name)s %(theirs)s, así que empiezas tú con %(dice)s."
            )
            % {"mine": mine, "theirs": theirs, "name": name, "dice": dice_text(self.opening)}
        )

    def to_do(self) -> str:
        """What the reader has to do now."""
        if self.kind == DOUBLED:
            return _("Te toca decidir: aceptar el cubo o rechazarlo y perder esta partida.")
        if self.kind == RESIGN_OFFERED:
            return _("Te toca decidir: aceptar la rendición o seguir jugando.")
        if self.my_dice:
            return _("La mesa ya tiró tus dados: te toca mover con %(dice)s.") % {
                "dice": self.my_dice
            }
        if self.format != Format.SINGLE and self.opening is None:
            return _("Te toca doblar o tirar.")
        return _("Te toca mover.")

    def where(self) -> str:
        """The match, by its format and score: "el match a 5 (tú 2, Ana 1)"."""
        words = {"name": self.opponent, "mine": self.mine, "theirs": self.theirs}
        if self.format == Format.MATCH:
            return ngettext(
                "el match a %(length)s punto (tú %(mine)s, %(name)s %(theirs)s)",
                "el match a %(length)s puntos (tú %(mine)s, %(name)s %(theirs)s)",
                self.length or 0,  # a match always has its length
            ) % {**words, "length": self.length}
        if self.format == Format.SESSION:
            return _("la sesión libre (tú %(mine)s, %(name)s %(theirs)s)") % words
        return _("la partida simple")

    def score_line(self) -> str | None:
        """The score in a sentence; None in a partida simple, which has no points."""
        if self.format == Format.SINGLE:
            return None
        words = {"name": self.opponent, "mine": self.mine, "theirs": self.theirs}
        if self.format == Format.MATCH:
            return ngettext(
                "Marcador: tú %(mine)s, %(name)s %(theirs)s, en un match a %(length)s punto.",
                "Marcador: tú %(mine)s, %(name)s %(theirs)s, en un match a %(length)s puntos.",
                self.length or 0,  # a match always has its length
            ) % {**words, "length": self.length}
        return _("Marcador de la sesión: tú %(mine)s, %(name)s %(theirs)s.") % words

    def deadline_line(self) -> str:
        """Until when the reader may play, in their time zone and language."""
        if self.deadline is None:
            return _("Juega cuando quieras: esta mesa no tiene plazo.")
        with timezone.override(self.deadline.tzinfo):
            when = formats.date_format(self.deadline, "DATETIME_FORMAT")
            back = self.away_until and formats.date_format(self.away_until, "DATETIME_FORMAT")
        if back:
            return _(
                "Estás de vacaciones hasta el %(back)s (hora de %(zone)s): tu reloj está parado. "
                "Cuando vuelvas tendrás hasta el %(when)s para jugar; después %(name)s podrá "
                "cerrar la partida por ausencia."
            ) % {"back": back, "when": when, "zone": self.zone, "name": self.opponent}
        return _(
            "Tienes hasta el %(when)s (hora de %(zone)s) para jugar; después %(name)s podrá "
            "cerrar la partida por ausencia."
        ) % {"when": when, "zone": self.zone, "name": self.opponent}

    def subject(self) -> str:
        """The subject names the opponent and the match, and says what happened."""
        words = {"name": self.opponent, "where": self.where()}
        if self.kind == DOUBLED:
            return _("%(name)s te dobla a %(value)s en %(where)s") % {**words, "value": self.cube}
        if self.kind == RESIGN_OFFERED:
            return _("%(name)s ofrece rendirse en %(where)s") % words
        if self.kind == REMATCH:
            return _("Empieza la revancha contra %(name)s: %(where)s") % words
        if self.kind in (NEW_GAME, FIRST_GAME):
            return _("Empieza la partida %(number)s contra %(name)s: %(where)s") % {
                **words,
                "number": self.game_number,
            }
        return _("Te toca contra %(name)s en %(where)s") % words


def answer_sentence(answer: str, opponent: str, value: int) -> str:
    """The double the table answered for the reader as they had written."""
    words = {"name": opponent, "value": value}
    if answer == ActionKind.TAKE:
        return _("%(name)s te dobló a %(value)s y aceptaste, como lo dejaste escrito.") % words
    if answer == ActionKind.BEAVER:
        return (
            _("%(name)s te dobló a %(value)s y aceptaste con castor, como lo dejaste escrito.")
            % words
        )
    return _("%(name)s te dobló a %(value)s y rechazaste, como lo dejaste escrito.") % words


WRITTEN_ANSWERS = (ActionKind.TAKE, ActionKind.DROP, ActionKind.BEAVER)
NOTES = (ActionKind.CONDITIONAL_ANSWER, ActionKind.CONDITIONAL_PLAYS)


def written_answer(match: Match, side: int) -> tuple[str, int] | None:
    """The answer `side` had written that the table played in the last unit of work
    a person started, with the value doubled to; None when someone acted since.

    The last Turn a person chose (not the table's rolls, plays or the next
    game's start, nor anyone's written notes) is the opponent's double; the
    table's answer comes right after it. One query.
    """
    last = (
        Turn.objects.filter(game__match=match)
        .exclude(kind__in=(ActionKind.NEXT_GAME, *NOTES))
        .filter(Q(automatic=False) | Q(kind__in=WRITTEN_ANSWERS, reason=CONDITIONAL))
        .order_by("-game__number", "-number")
        .first()
    )
    if last is None or last.side != side or last.reason != CONDITIONAL:
        return None
    if last.kind not in WRITTEN_ANSWERS:
        return None
    # A take records the cube it took; a beaver the cube it took before redoubling.
    return str(last.kind), last.cube_value if last.kind != ActionKind.DROP else last.cube_value * 2


def dice_text(dice: Sequence[int]) -> str:
    """A roll as players write it, the higher die first: "5-1"."""
    high, low = sorted(dice, reverse=True)
    return f"{high}-{low}"


def resign_word(kind: int | None) -> str:
    return {1: _("partida simple"), 2: _("gammon"), 3: _("backgammon")}.get(kind or 1, "")


class _Common(TypedDict):
    """The fields of TurnNews every kind of news fills the same way."""

    opponent: str
    format: str
    length: int | None
    mine: int
    theirs: int
    game_number: int
    match_number: int
    deadline: datetime | None
    zone: str
    away_until: datetime | None
    answered: str | None
    answered_cube: int | None


def turn_news(match: Match, seat: Seat, *, zone_name: str | None = None) -> TurnNews:
    """What happened since `seat` last acted in `match`, which waits for it now.

    Reads the match's current game and its Turn rows, and the reader's
    written answer the table may just have played (three queries), and the clock of
    the turn with the reader's vacations (two more).
    """
    room = match.room
    state = MatchState.from_json(match.state)
    rules = MatchRules.from_json(room.rules)
    me = match.side_of(seat)
    them = 1 - me
    opponent = next(
        (s.nickname for s in room.seats.all() if s.pk != seat.pk),
        "",
    )
    game = Game.objects.filter(match=match).order_by("-number").first()
    turns = list(Turn.objects.filter(game=game).order_by("number")) if game else []
    zone = zone_of(zone_name)
    # The clock the board shows: it stands still while the reader is on vacation.
    turn_clock = vacations.turn_clock(match)
    due = turn_clock.closes_at
    now = clock.now()
    away = next((end for start, end in turn_clock.pauses if start <= now < end), None)
    answered = written_answer(match, me)
    base: _Common = {
        "opponent": opponent,
        "format": str(rules.format),
        "length": rules.length if rules.format == Format.MATCH else None,
        "mine": state.score[me] if rules.format != Format.SINGLE else 0,
        "theirs": state.score[them] if rules.format != Format.SINGLE else 0,
        "game_number": game.number if game else 1,
        "match_number": match.number,
        "deadline": due.astimezone(zone) if due else None,
        "zone": str(zone),
        "away_until": away.astimezone(zone) if away and due else None,
        "answered": answered[0] if answered else None,
        "answered_cube": answered[1] if answered else None,
    }
    if state.phase is Phase.DOUBLED:
        return TurnNews(DOUBLED, cube=state.cube_value * 2, **base)
    if state.phase is Phase.RESIGN_OFFERED:
        offered = state.resign_value or 1
        points = state.score_value(WinKind(offered))  # the engine's count: cube, Jacoby
        return TurnNews(RESIGN_OFFERED, resign_kind=offered, resign_points=points, **base)

    opening = _opening_rolls(turns)
    # The dice already on the table for the reader (rolled for them, or the opening's).
    my_dice = dice_text(state.dice) if state.phase is Phase.MOVE and state.dice else None
    # Back from the end: what the opponent did since the reader's last act.
    for turn in reversed(turns):
        if turn.pk in opening:
            break  # the game began: nobody but the table acted yet
        if turn.side != them:
            if turn.kind == "roll" and turn.automatic:
                continue  # the table rolled for the reader
            break  # the reader's own last act: nothing of the opponent's after it
        if turn.kind == "play":
            dice = _dice_before(turns, turn)
            if not turn.notation:
                return TurnNews(BLOCKED, dice=dice, my_dice=my_dice, **base)
            return TurnNews(MOVED, dice=dice, play=turn.notation, my_dice=my_dice, **base)
        if turn.kind == "roll" and turn.steps == []:
            return TurnNews(BLOCKED, dice=dice_text(turn.dice or ()), my_dice=my_dice, **base)
        if turn.kind in ("take", "beaver"):
            return TurnNews(TOOK, cube=turn.cube_value, my_dice=my_dice, **base)
        if turn.kind == "resign_decline":
            return TurnNews(RESIGN_DECLINED, my_dice=my_dice, **base)
        if turn.kind == "roll":
            continue  # the opponent's roll: its play comes after it
        break
    # Nothing of the opponent's in this game: it has just begun, and the reader starts.
    last_opening = next((t.dice for t in reversed(turns) if t.pk in opening), None)
    pair = (last_opening[me], last_opening[them]) if last_opening else None
    if game is not None and game.number > 1:
        began = NEW_GAME
    elif match.number > 1:
        began = REMATCH
    else:
        began = FIRST_GAME
    return TurnNews(began, opening=pair, **base)


def _opening_rolls(turns: list[Turn]) -> set[int]:
    """The ids of the opening roll(s): the table's rolls that begin the game, until
    one that is not a tie (a tie rolls again)."""
    found: set[int] = set()
    for turn in turns:
        if turn.kind == "next_game":
            continue
        if turn.kind != "roll" or not turn.automatic:
            break
        found.add(turn.pk)
        dice: Sequence[int] = turn.dice or ()
        if len(dice) == 2 and dice[0] != dice[1]:
            break
    return found


def _dice_before(turns: list[Turn], play: Turn) -> str | None:
    """The dice of a play: the roll just before it."""
    rolls = [t for t in turns if t.kind == "roll" and t.number < play.number]
    return dice_text(rolls[-1].dice or ()) if rolls else None
