"""The life of a match: formats, the doubling cube, resigning, scoring.

``MatchState`` is an immutable value. ``state.apply(action)`` returns the next
state or raises ``IllegalAction``; nothing else changes a match, so the site,
the bots and the tests all drive the same rules. Dice are an input: the
service rolls them and records every action with its dice, so a match
rebuilds exactly from its action list (``MatchState.replay``) and its state
survives a JSON round trip (``to_json`` / ``from_json``).

Sides are 0 and 1. ``turn`` is the side that must act now (the taker while a
double is pending); ``on_roll`` is the side whose turn of play it is (the
doubler while a double is pending), as GNU Backgammon's ``fTurn`` and
``fMove``. ``position`` is seen from side ``turn``; ``position_for(side)``
gives it from either side.

Codes of the refusals (the site translates by code, ``reason`` is English);
``bad_action`` and ``unknown_action`` are ``InvalidInput`` (the action cannot
be read), all the others ``IllegalAction`` (see ``games.engine.errors``):

- ``match_over``: the match is finished; ``game_over``: the game is finished
  and only ``next_game`` (or ``stop``, ``forfeit``) may follow.
- ``unknown_action``, ``bad_action`` (a malformed action: missing dice, a
  resign value other than 1-3, a forfeit without a reason...).
- ``not_your_turn``, ``wrong_phase`` (the action does not fit the moment).
- ``already_rolled``: doubling or rolling after the dice were rolled.
- ``no_cube`` (partida simple has no cube), ``crawford`` (no cube in the
  Crawford game), ``cube_max`` (the cube stops at 64), ``cannot_double`` (the
  opponent owns the cube).
- ``nothing_offered``: take, drop, beaver, accept or decline with no offer.
- ``beaver_not_allowed``: beavers are off, or this double is itself a beaver.
- ``illegal_play``: the play is not legal for the dice (``move_code`` holds
  the engine's own code, e.g. ``bar_first``).
- ``not_session``: only a sesión libre stops between games.
- ``no_double_ahead``: a conditional answer, but the opponent may not double
  at their next turn (no cube, Crawford, the recorder owns it, or they rolled).
- ``opponent_can_change``: conditional plays while the opponent's move can
  still change the recorder's next turn.

Conditional actions. A player may write ahead what the table then plays for
them, each writing recorded as an action so that a replay rebuilds it:

- ``cond_answer`` (``reason`` take, drop or beaver; None clears): the answer
  to the opponent's next double, written on one's own turn or on the
  opponent's before they roll. It is played the moment they double; it
  expires when they roll instead, and when the cube or the game changes.
- ``cond_plays`` (``table``: a play per roll, any of the 21): the plays of
  one's next turn, written while the opponent is on roll and cannot change
  that turn (``conditional.opponent_cannot_change``). Writing them asks the
  table to roll for you on that turn (you give up doubling there); the
  play written for the roll is then played. They last one turn.
- A side may also have its forced plays made for it (``advance(...,
  forced_for=...)``: the site passes the players who want it).

What the table plays so is recorded with ``reason`` "conditional" or
"forced" (``MatchState.planned_action``). A written answer or play that does
not fit when its moment comes is not played: the player is asked as usual.

A resignation is offered at most once per turn: after a decline the same
player plays on and may offer again on their next turn (``wrong_phase``
until then), so an offer cannot be repeated to wear the opponent down.

A mutual closeout (both sides on the bar against closed home boards) can
never change, whatever the dice. The table does not roll there
(``needs_auto_roll`` is False): the player on turn rolls by hand, each roll
passes and is recorded, and either player may resign or forfeit. A
correspondence game so waits for a person instead of rolling for ever.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, TypeVar

from .conditional import PlayTable, forced_play, opponent_cannot_change, play_table, roll_key
from .dice import DiceSource, opening_starter
from .enums import ActionKind, Ending, EndReason, Format, Phase
from .errors import IllegalAction, IllegalMove, InvalidInput
from .moves import check_play, legal_plays
from .position import Position, Step, WinKind
from .record import FORFEIT_REASONS, Action, GameResult, table_from_json, table_to_json
from .rules import CUBE_LIMIT, MatchRules

__all__ = ["MatchState", "advance"]

_T = TypeVar("_T")

# Someone owes the next action in these phases; the opening is the table's
# roll, GAME_OVER (a session between games) and MATCH_OVER wait for nobody.
_OWED_PHASES = frozenset({Phase.ROLL, Phase.DOUBLED, Phase.MOVE, Phase.RESIGN_OFFERED})


@dataclass(frozen=True)
class MatchState:
    """Everything about a match at one moment; ``apply`` gives the next moment."""

    rules: MatchRules
    score: tuple[int, int] = (0, 0)
    game_number: int = 1
    crawford_game: bool = False
    post_crawford: bool = False
    cube_value: int = 1
    cube_owner: int | None = None
    turn: int = 0
    on_roll: int = 0
    phase: Phase = Phase.OPENING
    position: Position = field(default_factory=Position.initial)
    dice: tuple[int, int] | None = None
    resign_value: int | None = None
    beaver_pending: bool = False  # the double awaiting an answer is a beaver
    resign_declined: bool = False  # side `on_roll` had a resignation declined this turn
    auto_doubles_used: int = 0
    games: tuple[GameResult, ...] = ()
    winner: int | None = None
    end_reason: EndReason | None = None  # set once MATCH_OVER
    last_action: Action | None = None  # as recorded: a blocked roll carries play=()
    # Written ahead, by side: the answer (take, drop, beaver) to the opponent's
    # next double, and the plays of one's next turn (see "Conditional actions").
    cube_answers: tuple[ActionKind | None, ActionKind | None] = (None, None)
    play_tables: tuple[PlayTable | None, PlayTable | None] = (None, None)

    @classmethod
    def new(cls, rules: MatchRules) -> MatchState:
        return cls(rules=rules)

    @classmethod
    def replay(cls, rules: MatchRules, actions: Iterable[Action]) -> MatchState:
        state = cls.new(rules)
        for action in actions:
            state = state.apply(action)
        return state

    # -- questions -------------------------------------------------------

    def position_for(self, side: int) -> Position:
        return self.position if side == self.turn else self.position.flip()

    def owing_side(self) -> int | None:
        """The side that owes the next action; None while only the table or nobody acts."""
        return self.turn if self.phase in _OWED_PHASES else None

    def may_double(self, side: int) -> bool:
        return self.phase is Phase.ROLL and side == self.turn and self._double_refusal() is None

    def needs_auto_roll(self) -> bool:
        """True when the table rolls: the opening, or a player who may not double."""
        if self.phase is Phase.OPENING:
            return True
        if self.phase is not Phase.ROLL:
            return False
        if self.play_tables[self.turn] is not None:
            # Who wrote their plays ahead asked the table to roll for them.
            return True
        if self.may_double(self.turn):
            return False
        # No roll changes a mutual closeout: rolling for the players would never end.
        return not self.position.is_mutual_closeout()

    def may_beaver(self) -> bool:
        return (
            self.phase is Phase.DOUBLED
            and self.rules.beavers
            and not self.beaver_pending
            and self.cube_value * 4 <= CUBE_LIMIT
        )

    def legal_plays(self) -> tuple[tuple[Step, ...], ...]:
        """The plays open to side `turn` for the dice rolled; () outside the MOVE phase."""
        if self.phase is not Phase.MOVE or self.dice is None:
            return ()
        return _legal_plays(self.position, self.dice)

    def allowed_actions(self, side: int) -> frozenset[ActionKind]:
        """What `side` may choose now; the table's own rolls (the opening) are not listed."""
        phase = self.phase
        if phase is Phase.MATCH_OVER:
            return frozenset()
        allowed = {ActionKind.FORFEIT}
        if phase is Phase.GAME_OVER:
            allowed.add(ActionKind.NEXT_GAME)
            if self.rules.format is Format.SESSION:
                allowed.add(ActionKind.STOP)
        elif side == self.turn:
            if phase is Phase.ROLL:
                allowed.add(ActionKind.ROLL)
                if self.may_double(side):
                    allowed.add(ActionKind.DOUBLE)
            elif phase is Phase.MOVE:
                allowed.add(ActionKind.PLAY)
            if phase in (Phase.ROLL, Phase.MOVE) and not self.resign_declined:
                allowed.add(ActionKind.RESIGN_OFFER)
            elif phase is Phase.DOUBLED:
                allowed |= {ActionKind.TAKE, ActionKind.DROP}
                if self.may_beaver():
                    allowed.add(ActionKind.BEAVER)
            elif phase is Phase.RESIGN_OFFERED:
                allowed |= {ActionKind.RESIGN_ACCEPT, ActionKind.RESIGN_DECLINE}
        if self.may_record_answer(side):
            allowed.add(ActionKind.CONDITIONAL_ANSWER)
        if self.may_record_plays(side):
            allowed.add(ActionKind.CONDITIONAL_PLAYS)
        return frozenset(allowed)

    # -- conditional actions ---------------------------------------------

    def may_record_answer(self, side: int) -> bool:
        """Whether `side` may write now its answer to the opponent's next double.

        On one's own turn (before or after rolling), or on the opponent's turn
        before they roll; and only when the opponent may double at their turn.
        """
        if self.phase is Phase.ROLL:
            pass
        elif self.phase is not Phase.MOVE or self.turn != side:
            return False
        return (
            self.rules.uses_cube
            and not self.crawford_game
            and self.cube_owner != side
            and self.cube_value * 2 <= CUBE_LIMIT
        )

    def may_write_beaver(self) -> bool:
        """Whether a written answer may be a beaver: beavers are played and the cube has room."""
        return self.rules.beavers and self.cube_value * 4 <= CUBE_LIMIT

    def may_record_plays(self, side: int) -> bool:
        """Whether `side` may write now the plays of their next turn, one per roll.

        Only while the opponent is on roll and cannot change what `side` will
        face (``conditional.opponent_cannot_change``).
        """
        if self.phase not in (Phase.ROLL, Phase.DOUBLED, Phase.MOVE) or self.on_roll == side:
            return False
        return opponent_cannot_change(self.position_for(side))

    def planned_action(self, forced_for: Collection[int] = ()) -> Action | None:
        """What the table plays now for the side on turn, None when that side must choose.

        A written answer when the opponent's double comes (a beaver only where
        it is still allowed), a written play for the dice rolled when it is
        legal, else the only legal play for a side in ``forced_for`` (the site
        passes the players who want forced plays made for them). What was
        written but does not fit is not played: the player is asked as usual,
        and what they do clears it.
        """
        side = self.turn
        if self.phase is Phase.DOUBLED and not self.beaver_pending:
            answer = self.cube_answers[side]
            if answer is not None and (answer is not ActionKind.BEAVER or self.may_beaver()):
                return Action(answer, side, reason=CONDITIONAL)
            return None
        if self.phase is not Phase.MOVE or self.dice is None:
            return None
        written = dict(self.play_tables[side] or ()).get(roll_key(self.dice))
        if written is not None:
            try:
                check_play(self.position, self.dice, written)
            except IllegalMove:
                pass
            else:
                return Action(ActionKind.PLAY, side, play=written, reason=CONDITIONAL)
        if side in forced_for:
            play = forced_play(self.position, self.dice)
            if play is not None:
                return Action(ActionKind.PLAY, side, play=play, reason=FORCED)
        return None

    def score_value(self, kind: WinKind) -> int:
        """Points a game of this kind is worth now: kind times the cube, Jacoby aside."""
        if self.rules.format is Format.SINGLE:
            return 1
        if self.rules.jacoby and self.cube_owner is None:
            # Jacoby: gammons count single while the cube was never turned
            # (an automatic double leaves it centred, so it does not count).
            return self.cube_value
        return int(kind) * self.cube_value

    def away(self) -> tuple[int, int] | None:
        """Points each side still needs in a match, None in other formats."""
        if self.rules.format is not Format.MATCH:
            return None
        length = self.rules.length
        return (max(0, length - self.score[0]), max(0, length - self.score[1]))

    # -- the state machine -----------------------------------------------

    def apply(self, action: Action) -> MatchState:
        """The state after `action`; raises InvalidInput (unreadable) or IllegalAction."""
        if self.phase is Phase.MATCH_OVER:
            raise IllegalAction("match_over", "the match is over")
        # An Action makes every known kind an ActionKind; anything else is unknown
        # (a list from JSON too, which a set lookup would refuse with a TypeError).
        if not isinstance(action.kind, ActionKind):
            raise InvalidInput("unknown_action", f"there is no action {action.kind!r}")
        if action.side not in (0, 1) or isinstance(action.side, bool):
            raise InvalidInput("bad_action", f"sides are 0 and 1, got {action.side!r}")
        if action.kind == ActionKind.FORFEIT:
            return self._forfeit(action)
        if action.kind in (ActionKind.NEXT_GAME, ActionKind.STOP):
            if action.kind == ActionKind.STOP and self.rules.format is not Format.SESSION:
                # Say what is wrong for good, not "wait for the game to end".
                raise IllegalAction("not_session", "only a sesión libre stops between games")
            if self.phase is not Phase.GAME_OVER:
                raise IllegalAction("wrong_phase", "the game is still being played")
            return (
                self._next_game(action)
                if action.kind == ActionKind.NEXT_GAME
                else self._stop(action)
            )
        if self.phase is Phase.GAME_OVER:
            raise IllegalAction("game_over", "the game is over; the next one has not started")
        return _IN_GAME_HANDLERS[action.kind](self, action)

    def _check_turn(self, action: Action) -> None:
        if action.side != self.turn:
            raise IllegalAction("not_your_turn", "it is the other side's turn")

    def _double_refusal(self) -> IllegalAction | None:
        """Why the player on turn may not double now (None when they may)."""
        if not self.rules.uses_cube:
            return IllegalAction("no_cube", "a partida simple is played without the cube")
        if self.crawford_game:
            return IllegalAction("crawford", "the Crawford game is played without the cube")
        if self.cube_owner is not None and self.cube_owner != self.turn:
            return IllegalAction("cannot_double", "only the owner of the cube may redouble")
        if self.cube_value * 2 > CUBE_LIMIT:
            return IllegalAction("cube_max", f"the cube does not go past {CUBE_LIMIT}")
        return None

    def _roll(self, action: Action) -> MatchState:
        dice = _checked_dice(action.dice)
        if action.play:
            raise InvalidInput("bad_action", "a roll carries no play")
        if self.phase is Phase.OPENING:
            return self._opening_roll(action, dice)
        if self.phase is Phase.MOVE:
            raise IllegalAction("already_rolled", "the dice are already rolled")
        if self.phase is not Phase.ROLL:
            raise IllegalAction("wrong_phase", "an offer is waiting for an answer")
        self._check_turn(action)
        # Rolling instead of doubling: the opponent's written answer has expired.
        return self._with_answer(1 - action.side, None)._start_move(action, dice)

    def _opening_roll(self, action: Action, dice: tuple[int, int]) -> MatchState:
        if action.side != 0:
            raise IllegalAction("not_your_turn", "the opening roll is recorded as side 0's")
        recorded = Action(ActionKind.ROLL, 0, dice)
        starter = opening_starter(dice)
        if starter is None:
            # A tie rolls again; with automatic doubles it doubles the centred cube.
            if (
                self.rules.auto_doubles
                and self.auto_doubles_used < self.rules.max_auto_doubles
                and self.cube_value * 2 <= CUBE_LIMIT
            ):
                return replace(
                    self,
                    cube_value=self.cube_value * 2,
                    auto_doubles_used=self.auto_doubles_used + 1,
                    last_action=recorded,
                )
            return replace(self, last_action=recorded)
        state = replace(self, turn=starter, on_roll=starter, position=Position.initial())
        return state._start_move(action, dice, recorded)

    def _start_move(
        self, action: Action, dice: tuple[int, int], recorded: Action | None = None
    ) -> MatchState:
        recorded = recorded or Action(ActionKind.ROLL, action.side, dice)
        if not _legal_plays(self.position, dice):
            # No legal play: the turn passes at once, and the record says so.
            if action.play is not None and action.play != ():
                raise InvalidInput("bad_action", "a roll carries no play")
            # Written plays were for this turn: a roll that passes uses them up.
            return replace(
                self._with_table(self.turn, None)._pass_turn(self.position),
                last_action=replace(recorded, play=()),
            )
        if action.play == ():
            raise InvalidInput("bad_action", "this roll can be played; it does not pass")
        return replace(self, phase=Phase.MOVE, dice=dice, last_action=recorded)

    def _pass_turn(self, mover_view: Position) -> MatchState:
        other = 1 - self.on_roll
        return replace(
            self,
            phase=Phase.ROLL,
            turn=other,
            on_roll=other,
            position=mover_view.flip(),
            dice=None,
            resign_declined=False,
        )

    def _play(self, action: Action) -> MatchState:
        if self.phase is not Phase.MOVE:
            raise IllegalAction("wrong_phase", "roll the dice before playing")
        self._check_turn(action)
        if action.play is None:
            raise InvalidInput("bad_action", "a play needs its steps")
        try:
            play = tuple((src, dst) for src, dst in action.play)
        except (TypeError, ValueError):
            raise InvalidInput("bad_action", "a play is a list of (from, to) steps") from None
        # Whole point numbers only: int() would quietly read 24.7 or "24" as 24.
        if not all(type(point) is int for step in play for point in step):
            raise InvalidInput("bad_action", "a step is two whole point numbers")
        assert self.dice is not None
        if play in _legal_plays(self.position, self.dice):
            # A play the generator produced is legal as it stands (bots and
            # replays send those); any other order goes through check_play.
            after = self.position.apply(play)
        else:
            try:
                after = check_play(self.position, self.dice, play)
            except IllegalMove as exc:
                raise IllegalAction("illegal_play", exc.reason, exc.code) from None
        recorded = Action(ActionKind.PLAY, action.side, play=play, reason=_auto(action))
        outcome = after.outcome()
        if outcome is not None:
            winner = self.turn if outcome.winner_is_me else 1 - self.turn
            state = replace(self, position=after if winner == self.turn else after.flip())
            return state._end_game(winner, Ending.BEAROFF, outcome.kind, recorded)
        played = self._with_table(action.side, None)
        return replace(played._pass_turn(after), last_action=recorded)

    def _double(self, action: Action) -> MatchState:
        if self.phase is Phase.MOVE:
            raise IllegalAction("already_rolled", "double before rolling, not after")
        if self.phase is not Phase.ROLL:
            raise IllegalAction("wrong_phase", "there is nothing to double now")
        self._check_turn(action)
        refusal = self._double_refusal()
        if refusal is not None:
            raise refusal
        return replace(
            self,
            phase=Phase.DOUBLED,
            turn=1 - self.turn,
            position=self.position.flip(),
            beaver_pending=False,
            last_action=Action(ActionKind.DOUBLE, action.side),
        )

    def _check_offer(self, action: Action, phase: Phase) -> None:
        if self.phase is not phase:
            what = "double" if phase is Phase.DOUBLED else "resignation"
            raise IllegalAction("nothing_offered", f"no {what} is waiting for an answer")
        self._check_turn(action)

    def _take(self, action: Action) -> MatchState:
        self._check_offer(action, Phase.DOUBLED)
        # A taken double belongs to the taker; a taken beaver stays with the beaverer.
        owner = 1 - self.turn if self.beaver_pending else self.turn
        return replace(
            self,
            phase=Phase.ROLL,
            cube_value=self.cube_value * 2,
            cube_owner=owner,
            turn=self.on_roll,
            position=self.position_for(self.on_roll),
            beaver_pending=False,
            cube_answers=(None, None),  # written for the cube as it was
            last_action=Action(ActionKind.TAKE, action.side, reason=_auto(action)),
        )

    def _drop(self, action: Action) -> MatchState:
        self._check_offer(action, Phase.DOUBLED)
        # The doubler (or the beaverer) wins at the value before the refused double.
        winner = 1 - self.turn
        state = replace(self, beaver_pending=False)
        return state._end_game(
            winner,
            Ending.DROP,
            WinKind.SINGLE,
            Action(ActionKind.DROP, action.side, reason=_auto(action)),
            points=self.cube_value,
        )

    def _beaver(self, action: Action) -> MatchState:
        self._check_offer(action, Phase.DOUBLED)
        if not self.may_beaver():
            if not self.rules.beavers:
                reason = "beavers are not played in this room"
            elif self.beaver_pending:
                reason = "a beaver cannot be beavered"
            else:
                reason = f"the cube does not go past {CUBE_LIMIT}"
            raise IllegalAction("beaver_not_allowed", reason)
        # The taker accepts and redoubles at once; the doubler now answers.
        return replace(
            self,
            cube_value=self.cube_value * 2,
            turn=1 - self.turn,
            position=self.position.flip(),
            beaver_pending=True,
            cube_answers=(None, None),
            last_action=Action(ActionKind.BEAVER, action.side, reason=_auto(action)),
        )

    def _conditional_answer(self, action: Action) -> MatchState:
        if not self.may_record_answer(action.side):
            raise IllegalAction("no_double_ahead", "the opponent cannot double at their next turn")
        if action.reason is None:
            answer = None
        else:
            answer = _ANSWERS.get(action.reason)
            if answer is None:
                raise InvalidInput("bad_action", "an answer is take, drop or beaver")
            if answer is ActionKind.BEAVER and not self.may_write_beaver():
                raise IllegalAction("beaver_not_allowed", "no beaver is possible on this cube")
        recorded = Action(ActionKind.CONDITIONAL_ANSWER, action.side, reason=action.reason)
        return replace(self._with_answer(action.side, answer), last_action=recorded)

    def _conditional_plays(self, action: Action) -> MatchState:
        if not self.may_record_plays(action.side):
            raise IllegalAction(
                "opponent_can_change", "the opponent's move can still change your next turn"
            )
        table: PlayTable | None = None
        if action.table:
            try:
                table = play_table(self.position_for(action.side), action.table)
            except IllegalMove as exc:
                raise IllegalAction("illegal_play", exc.reason, exc.code) from None
        recorded = Action(ActionKind.CONDITIONAL_PLAYS, action.side, table=table or ())
        return replace(self._with_table(action.side, table), last_action=recorded)

    def _with_answer(self, side: int, answer: ActionKind | None) -> MatchState:
        answers = list(self.cube_answers)
        answers[side] = answer
        return replace(self, cube_answers=(answers[0], answers[1]))

    def _with_table(self, side: int, table: PlayTable | None) -> MatchState:
        tables = list(self.play_tables)
        tables[side] = table
        return replace(self, play_tables=(tables[0], tables[1]))

    def _resign_offer(self, action: Action) -> MatchState:
        if self.phase not in (Phase.ROLL, Phase.MOVE):
            raise IllegalAction("wrong_phase", "a resignation is offered on your own turn")
        self._check_turn(action)
        if self.resign_declined:
            raise IllegalAction(
                "wrong_phase", "a declined resignation is offered again on your next turn"
            )
        value = action.value
        if value not in (1, 2, 3) or isinstance(value, bool):
            raise InvalidInput("bad_action", "resign a single (1), gammon (2) or backgammon (3)")
        return replace(
            self,
            phase=Phase.RESIGN_OFFERED,
            resign_value=value,
            turn=1 - self.turn,
            position=self.position.flip(),
            last_action=Action(ActionKind.RESIGN_OFFER, action.side, value=value),
        )

    def _resign_accept(self, action: Action) -> MatchState:
        self._check_offer(action, Phase.RESIGN_OFFERED)
        assert self.resign_value is not None
        kind = WinKind(self.resign_value)
        return self._end_game(
            action.side, Ending.RESIGN, kind, Action(ActionKind.RESIGN_ACCEPT, action.side)
        )

    def _resign_decline(self, action: Action) -> MatchState:
        self._check_offer(action, Phase.RESIGN_OFFERED)
        return replace(
            self,
            phase=Phase.MOVE if self.dice is not None else Phase.ROLL,
            resign_value=None,
            turn=self.on_roll,
            position=self.position_for(self.on_roll),
            resign_declined=True,
            last_action=Action(ActionKind.RESIGN_DECLINE, action.side),
        )

    def _forfeit(self, action: Action) -> MatchState:
        if action.reason not in FORFEIT_REASONS:
            raise InvalidInput("bad_action", "a forfeit is for 'resign' or 'absence'")
        winner = 1 - action.side
        games = self.games
        if self.phase is not Phase.GAME_OVER:
            forfeited = GameResult(
                self.game_number,
                winner,
                Ending.FORFEIT,
                None,
                self.cube_value,
                0,
                self.crawford_game,
            )
            games += (forfeited,)
        return replace(
            self,
            phase=Phase.MATCH_OVER,
            turn=winner,
            position=self.position_for(winner),
            dice=None,
            resign_value=None,
            beaver_pending=False,
            games=games,
            winner=winner,
            end_reason=EndReason(action.reason),
            cube_answers=(None, None),
            play_tables=(None, None),
            last_action=Action(ActionKind.FORFEIT, action.side, reason=action.reason),
        )

    def _end_game(
        self,
        winner: int,
        ending: Ending,
        kind: WinKind,
        recorded: Action,
        points: int | None = None,
    ) -> MatchState:
        if points is None:
            points = self.score_value(kind)
        elif self.rules.format is Format.SINGLE:
            points = 1
        result = GameResult(
            self.game_number, winner, ending, kind, self.cube_value, points, self.crawford_game
        )
        score = list(self.score)
        score[winner] += points
        over = self.rules.format is Format.SINGLE or (
            self.rules.format is Format.MATCH and score[winner] >= self.rules.length
        )
        return replace(
            self,
            score=(score[0], score[1]),
            post_crawford=self.post_crawford or self.crawford_game,
            phase=Phase.MATCH_OVER if over else Phase.GAME_OVER,
            turn=winner,
            position=self.position_for(winner),
            dice=None,
            resign_value=None,
            resign_declined=False,
            beaver_pending=False,
            games=self.games + (result,),
            winner=winner if over else None,
            end_reason=EndReason.WON if over else None,
            cube_answers=(None, None),
            play_tables=(None, None),
            last_action=recorded,
        )

    def _next_game(self, action: Action) -> MatchState:
        crawford = False
        if self.rules.format is Format.MATCH and not self.post_crawford:
            # The first game after exactly one side reaches match point.
            match_point = self.rules.length - 1
            crawford = (self.score[0] == match_point) != (self.score[1] == match_point)
        return replace(
            self,
            game_number=self.game_number + 1,
            crawford_game=crawford,
            cube_value=1,
            cube_owner=None,
            turn=0,
            on_roll=0,
            phase=Phase.OPENING,
            position=Position.initial(),
            dice=None,
            resign_declined=False,
            auto_doubles_used=0,
            last_action=Action(ActionKind.NEXT_GAME, action.side),
        )

    def _stop(self, action: Action) -> MatchState:
        if self.score[0] == self.score[1]:
            winner = None
        else:
            winner = 0 if self.score[0] > self.score[1] else 1
        return replace(
            self,
            phase=Phase.MATCH_OVER,
            winner=winner,
            end_reason=EndReason.STOP,
            last_action=Action(ActionKind.STOP, action.side),
        )

    # -- persistence -----------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_json(),
            "score": list(self.score),
            "game_number": self.game_number,
            "crawford_game": self.crawford_game,
            "post_crawford": self.post_crawford,
            "cube_value": self.cube_value,
            "cube_owner": self.cube_owner,
            "turn": self.turn,
            "on_roll": self.on_roll,
            "phase": self.phase.value,
            "position": {"me": list(self.position.me), "them": list(self.position.them)},
            "dice": None if self.dice is None else list(self.dice),
            "resign_value": self.resign_value,
            "beaver_pending": self.beaver_pending,
            "resign_declined": self.resign_declined,
            "auto_doubles_used": self.auto_doubles_used,
            "games": [game.to_json() for game in self.games],
            "winner": self.winner,
            "end_reason": None if self.end_reason is None else str(self.end_reason),
            "last_action": None if self.last_action is None else self.last_action.to_json(),
            "cube_answers": [None if a is None else str(a) for a in self.cube_answers],
            "play_tables": [None if t is None else table_to_json(t) for t in self.play_tables],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchState:
        dice = data["dice"]
        last = data["last_action"]
        return cls(
            rules=MatchRules.from_json(data["rules"]),
            score=(data["score"][0], data["score"][1]),
            game_number=data["game_number"],
            crawford_game=data["crawford_game"],
            post_crawford=data["post_crawford"],
            cube_value=data["cube_value"],
            cube_owner=data["cube_owner"],
            turn=data["turn"],
            on_roll=data["on_roll"],
            phase=Phase(data["phase"]),
            position=Position(tuple(data["position"]["me"]), tuple(data["position"]["them"])),
            dice=None if dice is None else (dice[0], dice[1]),
            resign_value=data["resign_value"],
            beaver_pending=data["beaver_pending"],
            # States stored before this field existed had no declined offer pending.
            resign_declined=data.get("resign_declined", False),
            auto_doubles_used=data["auto_doubles_used"],
            games=tuple(GameResult.from_json(game) for game in data["games"]),
            winner=data["winner"],
            end_reason=None if data["end_reason"] is None else EndReason(data["end_reason"]),
            last_action=None if last is None else Action.from_json(last),
            # States stored before conditional actions existed had none written.
            cube_answers=_pair(
                None if a is None else ActionKind(a) for a in data.get("cube_answers", (None, None))
            ),
            play_tables=_pair(
                None if t is None else table_from_json(t)
                for t in data.get("play_tables", (None, None))
            ),
        )


# What each action does while a game is being played, by its kind (the forfeit,
# the next game and the stop are taken before a game's own checks, in apply).
_IN_GAME_HANDLERS = {
    ActionKind.ROLL: MatchState._roll,
    ActionKind.DOUBLE: MatchState._double,
    ActionKind.TAKE: MatchState._take,
    ActionKind.DROP: MatchState._drop,
    ActionKind.BEAVER: MatchState._beaver,
    ActionKind.PLAY: MatchState._play,
    ActionKind.RESIGN_OFFER: MatchState._resign_offer,
    ActionKind.RESIGN_ACCEPT: MatchState._resign_accept,
    ActionKind.RESIGN_DECLINE: MatchState._resign_decline,
    ActionKind.CONDITIONAL_ANSWER: MatchState._conditional_answer,
    ActionKind.CONDITIONAL_PLAYS: MatchState._conditional_plays,
}

# Why the table played an action for a player (``Action.reason``).
CONDITIONAL = "conditional"  # the player wrote it ahead
FORCED = "forced"  # the only legal play
_ANSWERS = {"take": ActionKind.TAKE, "drop": ActionKind.DROP, "beaver": ActionKind.BEAVER}


def _auto(action: Action) -> str | None:
    """The table's reason for playing ``action``, kept in the record; None for a player's own."""
    return action.reason if action.reason in (CONDITIONAL, FORCED) else None


def advance(
    state: MatchState,
    dice: DiceSource,
    limit: int = 1000,
    forced_for: Collection[int] = (),
) -> tuple[MatchState, list[Action]]:
    """Apply the table's own actions and return them, as recorded, for the service to store.

    The table rolls the opening (again after a tie, doubling the cube when
    automatic doubles are on) and rolls for a player who may not double. A
    roll with no legal play passes the turn inside ``apply``, so this may roll
    several times. It stops at a mutual closeout, where no roll can change
    anything (see the module's docstring). It plays what the players wrote
    ahead and, for the sides in ``forced_for``, the only legal play
    (``MatchState.planned_action``). ``limit`` is a last guard; the next call
    carries on from where this one stopped.
    """
    actions: list[Action] = []
    while len(actions) < limit:
        if state.needs_auto_roll():
            side = 0 if state.phase is Phase.OPENING else state.turn
            d1, d2 = dice.roll()
            action: Action | None = Action(ActionKind.ROLL, side, (d1, d2))
        else:
            action = state.planned_action(forced_for)
        if action is None:
            break
        state = state.apply(action)
        assert state.last_action is not None
        actions.append(state.last_action)
    return state, actions


def _pair(items: Iterable[_T]) -> tuple[_T, _T]:
    first, second = items
    return first, second


@lru_cache(maxsize=512)
def _legal_plays(position: Position, dice: tuple[int, int]) -> tuple[tuple[Step, ...], ...]:
    # A roll is looked at twice (does it pass? is the play one of these?), and
    # a replay looks again; the inputs are immutable, so remember the answer.
    return tuple(legal_plays(position, dice))


def _checked_dice(dice: Iterable[int] | None) -> tuple[int, int]:
    # The type is what a caller should send; an action read from JSON may hold anything.
    try:
        if dice is None:
            raise TypeError
        d1, d2 = dice
    except (TypeError, ValueError):
        raise InvalidInput("bad_action", "a roll needs its two dice") from None
    for die in (d1, d2):
        if not isinstance(die, int) or isinstance(die, bool) or not 1 <= die <= 6:
            raise InvalidInput("bad_action", f"each die shows 1 to 6, got {dice!r}")
    return d1, d2
