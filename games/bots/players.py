"""The four computer players and the random reference player.

Every bot ranks the legal plays with bgsage and then picks like its
character: the weaker ones add Gaussian noise to bgsage's equities (the way
GNU Backgammon's practice levels do) and a small bonus for the kind of play
they like, but never look at a play that bgsage rates worse than the best by
more than ``max_loss``, so their mistakes are the ones a person makes, not
random nonsense. See docs/BOTS.md for the numbers and why.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from games.engine import BAR, Play, Position, legal_plays

from . import deep, sage
from .context import CUBELESS_MONEY, BotContext
from .deep import Rollout, Search, Stage

if TYPE_CHECKING:
    from bgsage import CubeActionResult


def _(text: str) -> str:
    """Mark a string for makemessages; the site translates it when it shows it (gettext)."""
    return text


@dataclass(frozen=True, slots=True)
class Character:
    name: str
    label: str  # the strength shown on the site, Spanish source text
    style: str  # one line about how it plays, Spanish source text
    level: str  # bgsage level for checker play without a cube or score
    cubeful_level: str  # bgsage level for checker play with a cube or a match score
    cube_level: str  # bgsage level for cube and resign decisions
    # A deeper look at the close plays after ranking them all at ``level`` /
    # ``cubeful_level`` (games/bots/deep.py): Empresario spends its time there.
    search: tuple[Search, ...] = ()
    cubeful_search: tuple[Search, ...] = ()
    # A cube decision closer than ``deep_cube_window`` at ``cube_level`` is
    # decided again at ``deep_cube_level`` (none: never).
    deep_cube_level: str = ""
    deep_cube_window: float = 0.0
    noise: float = 0.0  # standard deviation added to each play's equity
    max_loss: float = 1.0  # plays worse than the best by more are never considered
    run: float = 0.0  # bonus per checker out of the opponent's home board
    hit: float = 0.0  # bonus per opponent checker on the bar
    points: float = 0.0  # bonus per point made in the home board
    # Cube decisions: bgsage's verdict, misjudged by a Gaussian error (in equity
    # normalised to the cube, as GNU Backgammon counts cube errors) that is cut
    # at ``cube_error``: a wrong double, take or drop never costs more than that.
    cube_error: float = 0.0  # the most equity one cube decision may give away
    cube_noise: float = 0.0  # standard deviation of the misjudgement
    double_bias: float = 0.0  # > 0 leans to doubling early, < 0 late
    take_bias: float = 0.0  # > 0 leans to taking too much
    resign_margin: float = 0.0  # accepts a resignation that gives up this much equity


DOMADOR = Character(
    "Domador", _("muy fácil"),
    _("Aprende a domar los dados: se le escapan jugadas y pega siempre que puede."),
    "1ply", "1ply", "3ply",
    noise=0.18, max_loss=0.6, hit=0.03,
    cube_error=0.12, cube_noise=0.08, double_bias=-0.03, take_bias=0.06, resign_margin=0.3,
)  # fmt: skip
CHOFER = Character(
    "Chofer", _("fácil"),
    _("Lo suyo es la carretera: saca pronto sus fichas de atrás y corre a casa."),
    "1ply", "1ply", "3ply",
    noise=0.12, max_loss=0.4, run=0.08,
    cube_error=0.08, cube_noise=0.05, double_bias=0.02, take_bias=0.02, resign_margin=0.2,
)  # fmt: skip
CARCELERO = Character(
    "Carcelero", _("medio"),
    _("Construye puntas en su casa y le encanta dejar tus fichas en la barra."),
    "1ply", "1ply", "3ply",
    noise=0.065, max_loss=0.25, hit=0.06, points=0.04,
    cube_error=0.04, cube_noise=0.025, take_bias=0.01, resign_margin=0.1,
)  # fmt: skip
EMPRESARIO = Character(
    "Empresario", _("difícil"),
    _("Juega fino y lleva el cubo como un negocio: dobla, acepta o rechaza según las cuentas."),
    "3ply", "2ply", "3ply",
    # Up to 6 plays within 0.16 of the best at cubeful 3-ply (GNU Backgammon's
    # 2-ply), then the best 3 within 0.06 settled by a truncated rollout
    # (bgsage's 1T); cubeless, the best 3 within 0.06 after bgsage's 3-ply.
    # A cube decision closer than 0.04 is rolled out the same way.
    search=(Rollout(3, 0.06),),
    cubeful_search=(Stage(3, 6, 0.16), Rollout(3, 0.06)),
    deep_cube_level="truncated1", deep_cube_window=0.04,
)  # fmt: skip

CHARACTERS = {c.name.lower(): c for c in (DOMADOR, CHOFER, CARCELERO, EMPRESARIO)}
BOT_NAMES = tuple(CHARACTERS)  # weakest to strongest


# With no time left a bot plays the best play of the cheapest ranking: bgsage's
# raw network (1-ply, GNU Backgammon's 0-ply), a few milliseconds a move.
CHEAPEST = "1ply"
# What a first pass (a whole ranking at a bot's level) is expected to take, in
# seconds of wall time in this process: the mean of the recent ones, each
# weighing FIRST_PASS_WEIGHT, from a prior above the median measured on an idle
# core (0.07 s; at most 0.6 s). Wall time: on a busy machine it grows, and the
# bot gives up the first pass earlier.
FIRST_PASS_PRIOR = 0.2
FIRST_PASS_WEIGHT = 0.2
_first_pass: dict[str, float] = {}
no_time_plays = 0  # plays made this way in this process; bench/botload counts them


def first_pass_cost(level: str) -> float:
    """The expected wall time of ranking every play at ``level`` in this process."""
    return _first_pass.get(level, FIRST_PASS_PRIOR)


def _record_first_pass(level: str, took: float) -> None:
    before = first_pass_cost(level)
    _first_pass[level] = before + FIRST_PASS_WEIGHT * (max(0.0, took) - before)


class Player(Protocol):
    """What a seat at a bot's table asks of its player: a ``Bot`` or the ``RandomPlayer``."""

    @property
    def name(self) -> str: ...

    def choose_play(
        self,
        position: Position,
        dice: tuple[int, int],
        context: BotContext | None = None,
        *,
        deadline: float | None = None,
    ) -> Play: ...

    def should_double(
        self, position: Position, context: BotContext, *, deadline: float | None = None
    ) -> bool: ...

    def should_take(
        self, position: Position, context: BotContext, *, deadline: float | None = None
    ) -> bool: ...

    def should_beaver(
        self, position: Position, context: BotContext, *, deadline: float | None = None
    ) -> bool: ...

    def should_accept_beaver(self, position: Position, context: BotContext) -> bool: ...

    def accept_resign(self, position: Position, value: int, context: BotContext) -> bool: ...

    def accept_rematch(self) -> bool: ...


class Bot:
    """A computer player. Positions are always seen from the bot's own side."""

    def __init__(
        self,
        character: Character,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.character = character
        self.rng = rng if rng is not None else random.Random()
        self.clock = clock  # what a move's deadline is read on; tests pass their own

    def __repr__(self) -> str:
        return f"<Bot {self.character.name}>"

    @property
    def name(self) -> str:
        return self.character.name

    # Checker play -----------------------------------------------------------

    def choose_play(
        self,
        position: Position,
        dice: tuple[int, int],
        context: BotContext | None = None,
        *,
        deadline: float | None = None,
    ) -> Play:
        """One of ``legal_plays(position, dice)``; the empty play when none exists.

        ``deadline`` (on ``self.clock``) ends the deeper search there: the
        later stages run only while time is left, and when less is left than
        the first pass is expected to take (``first_pass_cost``), that pass
        does not run either: the best play at bgsage 1-ply, the cheapest
        ranking (GNU Backgammon's 0-ply), is played at once. The weak bots
        rank at 1-ply anyway: for them a deadline changes nothing.
        """
        context = context or CUBELESS_MONEY
        c = self.character
        cubeful = sage.uses_cube_equity(context)
        level = c.cubeful_level if cubeful else c.level
        if level != CHEAPEST and deadline is not None:
            started = self.clock()
            if deadline - started < first_pass_cost(level):
                global no_time_plays
                no_time_plays += 1
                quick = sage.rank_plays(position, dice, CHEAPEST, context)
                return quick[0].play if quick else ()
            ranked = sage.rank_plays(position, dice, level, context)
            _record_first_pass(level, self.clock() - started)
        else:
            ranked = sage.rank_plays(position, dice, level, context)
        if not ranked:
            return ()
        stages = c.cubeful_search if cubeful else c.search
        if stages and len(ranked) > 1:
            ranked = deep.deepen(
                position, ranked, context, stages, deadline=deadline, now=self.clock
            )
        if len(ranked) == 1 or (c.noise == 0 and not self._has_style()):
            return ranked[0].play
        best = ranked[0].equity
        pool = [cand for cand in ranked if best - cand.equity <= c.max_loss]
        return max(pool, key=lambda cand: self._liking(cand.after, cand.equity)).play

    def _has_style(self) -> bool:
        c = self.character
        return bool(c.run or c.hit or c.points)

    def _liking(self, after: Position, equity: float) -> float:
        c = self.character
        score = equity
        if c.run:
            score -= c.run * (after.me[BAR] + sum(after.me[19:25]))
        if c.hit:
            score += c.hit * after.them[BAR]
        if c.points:
            score += c.points * sum(1 for p in range(1, 7) if after.me[p] >= 2)
        if c.noise:
            score += self.rng.gauss(0.0, c.noise)
        return score

    # Cube -------------------------------------------------------------------

    def should_double(
        self, position: Position, context: BotContext, *, deadline: float | None = None
    ) -> bool:
        """Offer the cube before rolling? ``position`` has the bot on roll.

        The bot doubles when bgsage's doubling equity, plus its bounded
        misjudgement, beats not doubling. Holding the cube it took, it only
        redoubles when bgsage says so: no whim turns a take into a redouble.
        ``deadline`` bounds a deeper look at a close decision (``_verdict``).
        """
        if not sage.cube_is_alive(context):
            return False
        verdict = self._verdict(position, context, take=False, deadline=deadline)
        gain = min(verdict.equity_dt, verdict.equity_dp) - verdict.equity_nd
        error = self._cube_misjudgement(self.character.double_bias)
        if context.cube_owner == "me":
            error = min(error, 0.0)
        # With no error, bgsage's own call (it settles ties, like a free double).
        return gain + error > 0 if error else verdict.should_double

    def should_take(
        self, position: Position, context: BotContext, *, deadline: float | None = None
    ) -> bool:
        """Take the cube the opponent just offered? ``position`` is from the bot's side."""
        verdict = self._verdict(position.flip(), context.flip(), take=True, deadline=deadline)
        # Equities are the doubler's: taking gains the bot what it costs the doubler.
        gain = verdict.equity_dp - verdict.equity_dt
        error = self._cube_misjudgement(self.character.take_bias)
        return gain + error >= 0 if error else verdict.should_take

    def should_beaver(
        self, position: Position, context: BotContext, *, deadline: float | None = None
    ) -> bool:
        """Take and redouble at once, keeping the cube (money sessions with beavers only)."""
        if not context.beavers or not context.is_money:
            return False
        verdict = self._verdict(position.flip(), context.flip(), take=True, deadline=deadline)
        return verdict.is_beaver

    def should_accept_beaver(self, position: Position, context: BotContext) -> bool:
        """Play on after the opponent beavered the bot's double (``position``: bot on roll).

        ``context`` holds the cube as it stands after the beaver. Playing on
        means the opponent owns the cube at twice that value; refusing loses
        the beavered value, which is half the stake of playing on.
        """
        playing_on = replace(context, cube_owner="them")
        verdict = sage.cube_decision(position, self.character.cube_level, playing_on)
        return verdict.equity_nd >= -0.5

    def _verdict(
        self,
        position: Position,
        context: BotContext,
        take: bool,
        deadline: float | None = None,
    ) -> CubeActionResult:
        """bgsage's cube verdict at the character's depth, deeper when it is close.

        ``position`` and ``context`` are the doubler's; ``take`` says which
        margin decides: the taker's (pass minus take) or the doubler's.
        With a ``deadline`` (on ``self.clock``) the deeper look is not begun
        when it is expected to end past it (``sage.cube_decision_until``),
        and the verdict at the character's depth stands.
        """
        c = self.character
        verdict = sage.cube_decision(position, c.cube_level, context)
        if c.deep_cube_level:
            nd, dt, dp = verdict.equity_nd, verdict.equity_dt, verdict.equity_dp
            margin = dp - dt if take else min(dt, dp) - nd
            if abs(margin) < c.deep_cube_window:
                if deadline is None:
                    return sage.cube_decision(position, c.deep_cube_level, context)
                deeper = sage.cube_decision_until(
                    position, c.deep_cube_level, context, deadline, self.clock
                )
                if deeper is not None:
                    verdict = deeper
        return verdict

    def _cube_misjudgement(self, bias: float) -> float:
        """How far off the bot judges one cube decision: never more than ``cube_error``."""
        c = self.character
        if not c.cube_error:
            return 0.0
        error = bias + (self.rng.gauss(0.0, c.cube_noise) if c.cube_noise else 0.0)
        return max(-c.cube_error, min(c.cube_error, error))

    # Resigning and rematches --------------------------------------------------

    def accept_resign(self, position: Position, value: int, context: BotContext) -> bool:
        """Accept the opponent's offer to resign ``value`` (1 single, 2 gammon, 3 backgammon).

        ``position`` is from the bot's side with the resigning player to roll.
        The bot accepts when the offer is worth at least what it expects from
        playing on, less its margin.
        """
        verdict = sage.cube_decision(position.flip(), self.character.cube_level, context.flip())
        p = verdict.probs  # the resigner's chances, before their roll
        # The bot's chances of winning/losing 1, 2 or 3 times the cube.
        outcomes = {
            1: (1.0 - p.win) - p.gammon_loss,
            2: p.gammon_loss - p.backgammon_loss,
            3: p.backgammon_loss,
            -1: p.win - p.gammon_win,
            -2: p.gammon_win - p.backgammon_win,
            -3: p.backgammon_win,
        }
        cube = context.cube_value
        if context.is_money:
            # Jacoby: while the cube is centred a gammon or backgammon counts single,
            # on the board and in an accepted resignation alike (as the engine scores).
            jacoby = context.jacoby and context.cube_owner == "centered"

            def worth(points: int) -> int:
                return (1 if points > 0 else -1) * cube if jacoby else points * cube

            play_on = sum(worth(k) * chance for k, chance in outcomes.items())
            return worth(value) >= play_on - self.character.resign_margin
        away_me, away_them = context.away()

        def after(points: int) -> float:
            if points > 0:
                return sage.match_winning_chance(away_me - points, away_them, False)
            return sage.match_winning_chance(away_me, away_them + points, False)

        play_on = sum(after(k * cube) * chance for k, chance in outcomes.items())
        # Margins are in money equity; a match winning chance moves about half as much.
        return after(value * cube) >= play_on - self.character.resign_margin / 2

    def accept_rematch(self) -> bool:
        """Every character is happy to play again: a table with a bot is never left waiting."""
        return True


class RandomPlayer:
    """The reference floor: any legal play, never doubles, takes everything."""

    name = "Random"

    def __init__(self, rng: random.Random | None = None):
        self.rng = rng if rng is not None else random.Random()

    def choose_play(
        self,
        position: Position,
        dice: tuple[int, int],
        context: BotContext | None = None,
        *,
        deadline: float | None = None,
    ) -> Play:
        plays = legal_plays(position, dice)
        return self.rng.choice(plays) if plays else ()

    def should_double(
        self, position: Position, context: BotContext, *, deadline: float | None = None
    ) -> bool:
        return False

    def should_take(
        self, position: Position, context: BotContext, *, deadline: float | None = None
    ) -> bool:
        return True

    def should_beaver(
        self, position: Position, context: BotContext, *, deadline: float | None = None
    ) -> bool:
        return False

    def should_accept_beaver(self, position: Position, context: BotContext) -> bool:
        return True

    def accept_resign(self, position: Position, value: int, context: BotContext) -> bool:
        return True

    def accept_rematch(self) -> bool:
        return True


def get_bot(name: str, rng: random.Random | None = None, *, seed: int | None = None) -> Bot:
    """The bot called ``name`` (any case): domador, chofer, carcelero or empresario.

    Pass ``rng`` (or ``seed``) to make its choices reproducible.
    """
    character = CHARACTERS.get(name.strip().lower())
    if character is None:
        raise ValueError(f"unknown bot {name!r}; the bots are {', '.join(BOT_NAMES)}")
    if rng is None and seed is not None:
        rng = random.Random(seed)
    return Bot(character, rng)
