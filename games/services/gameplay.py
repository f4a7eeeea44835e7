"""The game actions of a seat: one function per action, keyword-only arguments.

Each one (through _act):

1. opens a transaction and locks the room's current Match row (select_for_update),
   so one writer at a time acts on a game;
2. checks the actor's seat and the version the client saw (stale -> 409);
3. asks the engine (a refusal -> 409 out of turn / 422 against the rules);
4. writes one Turn row per action, the automatic ones too (opening roll, a roll
   for a player who may not double, the next game's start);
5. bumps the version, moves the clocks and records the follow-up tasks it owes
   (games.services.outbox) in the same transaction; they are published on
   commit, and by the follow-up sweep when that publish fails.

Steps 4 and 5 are the unit of work, games.services.table.
"""

from collections.abc import Callable

from django.db import transaction

from games.engine import (
    Action,
    ActionKind,
    EndReason,
    EngineError,
    Format,
    IllegalMove,
    InvalidInput,
    Play,
    greedy_bearoff_table,
    parse_play,
)
from games.lib.errors import BadInput, Conflict, IllegalMoveError, from_engine
from games.lib.site_actions import SiteAction
from games.models import Match, Seat
from games.selectors import vacations
from games.services import cleaning
from games.services.table import Table, lock_current_match, open_table
from games.services.tournaments import tournament_match_ended

# What an action does to the locked table, for the side of the seat acting.
Act = Callable[[Table, int], None]


def _engine(
    kind: ActionKind,
    *,
    play: tuple[tuple[int, int], ...] | None = None,
    value: int | None = None,
    reason: str | None = None,
) -> Act:
    """The act of an engine action by the seat's side, as the engine takes it."""
    return lambda table, side: table.apply(
        Action(kind, side, play=play, value=value, reason=reason)
    )


def game_roll(*, seat: Seat, version: object) -> Match:
    """Roll the dice for the player on turn (who might have doubled instead)."""

    def act(table: Table, side: int) -> None:
        # Ask before drawing: a refused roll must not touch the dice stream.
        table.require_allowed(ActionKind.ROLL, side)
        table.apply(Action(ActionKind.ROLL, side, dice=table.dice.roll()))

    return _act(seat, version, act)


def game_double(*, seat: Seat, version: object) -> Match:
    return _act(seat, version, _engine(ActionKind.DOUBLE))


def game_take(*, seat: Seat, version: object) -> Match:
    return _act(seat, version, _engine(ActionKind.TAKE))


def game_drop(*, seat: Seat, version: object) -> Match:
    return _act(seat, version, _engine(ActionKind.DROP))


def game_beaver(*, seat: Seat, version: object) -> Match:
    return _act(seat, version, _engine(ActionKind.BEAVER))


def game_play(*, seat: Seat, version: object, play: object) -> Match:
    """Play the whole turn: `play` is a list of [src, dst] steps from the mover's side."""
    steps = cleaning.clean_play(play)
    return _act(seat, version, _engine(ActionKind.PLAY, play=steps))


def game_resign_offer(*, seat: Seat, version: object, value: object) -> Match:
    """Offer the current game as single (1), gammon (2) or backgammon (3)."""
    if isinstance(value, bool) or not isinstance(value, int) or value not in (1, 2, 3):
        raise BadInput("bad_value", f"resign value {value!r}")
    return _act(seat, version, _engine(ActionKind.RESIGN_OFFER, value=value))


def game_resign_accept(*, seat: Seat, version: object) -> Match:
    return _act(seat, version, _engine(ActionKind.RESIGN_ACCEPT))


def game_resign_decline(*, seat: Seat, version: object) -> Match:
    return _act(seat, version, _engine(ActionKind.RESIGN_DECLINE))


def match_resign(*, seat: Seat, version: object) -> Match:
    """Give up the whole match (or the partida simple) at once."""
    return _act(seat, version, _engine(ActionKind.FORFEIT, reason=EndReason.RESIGN))


def game_claim_absence(*, seat: Seat, version: object) -> Match:
    """Win by absence: the opponent has owed an action for 48 hours."""

    def act(table: Table, side: int) -> None:
        match = table.match
        absent = 1 - side
        if table.owing_side() != absent:
            raise Conflict("not_your_turn", "the claimer is the one on turn")
        if table.is_bot_side(absent):
            raise IllegalMoveError("wrong_phase", "no absence against the computer")
        turn = vacations.turn_clock(match)  # stands still while the absent one is away
        if not turn.claimable(table.now):
            raise IllegalMoveError("too_early")
        table.apply(Action(ActionKind.FORFEIT, absent, reason=EndReason.ABSENCE))

    return _act(seat, version, act)


def absence_keep_waiting(*, seat: Seat, version: object) -> Match:
    """The waiting player lets this turn run past 48 h without automatic closure."""

    def act(table: Table, side: int) -> None:
        if table.owing_side() != 1 - side:
            raise Conflict("not_waiting", "only the waiting player may keep waiting")
        turn = vacations.turn_clock(table.match)
        if not turn.may_keep_waiting(table.now):
            raise IllegalMoveError("wrong_phase" if turn.waived else "too_early")
        table.match.absence_waived_for = table.match.turn_started_at

    return _act(seat, version, act)


def session_stop(*, seat: Seat, version: object) -> Match:
    """End a sesión libre between games."""

    return _act(seat, version, _engine(ActionKind.STOP))


def game_next(*, seat: Seat, version: object) -> Match:
    """Start the next game of a sesión libre (matches go on by themselves)."""

    def act(table: Table, side: int) -> None:
        if table.rules.format != Format.SESSION:
            raise IllegalMoveError("not_session")
        table.start_next_game(side)

    return _act(seat, version, act)


# --- written ahead: what the table plays for a player ---------------------------
# Private notes of one player: they move no clock and no version (the
# opponent's next action stays valid, see Table.save), and only the writer
# sees them until the table plays them.


def game_conditional_answer(*, seat: Seat, version: object, answer: object) -> Match:
    """Write (or clear, with None) the answer to the opponent's next double."""
    answer = cleaning.clean_answer(answer)
    return _act(seat, version, _engine(ActionKind.CONDITIONAL_ANSWER, reason=answer))


def game_conditional_plays(*, seat: Seat, version: object, plays: object) -> Match:
    """Write the plays of the next turn, one per roll (an empty list clears them).

    Each entry's play is a list of steps or a text in notation ("13/7 13/8"),
    read from the writer's side against the position the opponent cannot change.
    """
    entries = cleaning.clean_play_table(plays)

    def act(table: Table, side: int) -> None:
        position = table.state.position_for(side)
        written: list[tuple[tuple[int, int], Play]] = []
        for dice, sent in entries:
            play: Play = ()
            if isinstance(sent, str):
                try:
                    play = parse_play(position, dice, sent)
                except (InvalidInput, IllegalMove) as exc:
                    if table.state.may_record_plays(side):
                        raise from_engine(exc) from None
                    # The engine's refusal below says why nothing can be written now.
            else:
                play = sent
            written.append((dice, tuple(play)))
        table.apply(Action(ActionKind.CONDITIONAL_PLAYS, side, table=tuple(written)))

    return _act(seat, version, act)


def game_conditional_greedy(*, seat: Seat, version: object) -> Match:
    """Fill the next turn's table with the greedy bear-off play of each of the 21 rolls."""

    def act(table: Table, side: int) -> None:
        position = table.state.position_for(side)
        if not table.state.may_record_plays(side):
            raise IllegalMoveError("opponent_can_change")
        try:
            plays = greedy_bearoff_table(position)
        except EngineError as exc:
            raise from_engine(exc) from None
        table.apply(Action(ActionKind.CONDITIONAL_PLAYS, side, table=plays))

    return _act(seat, version, act)


# The dispatch table: every game action a seat may take, by the name the API, the
# forms and the bots use, to the function that performs it (the one list of them).
# The engine's own kinds are ActionKind members; the site's are SiteAction members
# (the engine only knows the forfeit an absence may lead to).
# games.web.action_requests.ACTION_SPECS adds how each reads its arguments.
ACTION_SERVICES: dict[str, Callable[..., Match]] = {
    ActionKind.ROLL: game_roll,
    ActionKind.DOUBLE: game_double,
    ActionKind.TAKE: game_take,
    ActionKind.DROP: game_drop,
    ActionKind.BEAVER: game_beaver,
    ActionKind.PLAY: game_play,
    ActionKind.RESIGN_OFFER: game_resign_offer,
    ActionKind.RESIGN_ACCEPT: game_resign_accept,
    ActionKind.RESIGN_DECLINE: game_resign_decline,
    ActionKind.FORFEIT: match_resign,
    ActionKind.STOP: session_stop,
    ActionKind.NEXT_GAME: game_next,
    ActionKind.CONDITIONAL_ANSWER: game_conditional_answer,
    ActionKind.CONDITIONAL_PLAYS: game_conditional_plays,
    SiteAction.CONDITIONAL_GREEDY: game_conditional_greedy,
    SiteAction.CLAIM_ABSENCE: game_claim_absence,
    SiteAction.KEEP_WAITING: absence_keep_waiting,
}


def game_act(
    *, seat: Seat, version: object, kind: str, play: object = None, value: object = None
) -> Match:
    """Dispatch one action by name (a bot's decision)."""
    service = ACTION_SERVICES.get(kind) if isinstance(kind, str) else None
    if service is None:
        raise BadInput("bad_input", f"unknown action {kind!r}")
    arguments: dict[str, dict[str, object]] = {
        ActionKind.PLAY: {"play": play},
        ActionKind.RESIGN_OFFER: {"value": value},
    }
    return service(seat=seat, version=version, **arguments.get(kind, {}))


def _act(seat: Seat, version: object, act: Act) -> Match:
    seen = cleaning.clean_version(version)
    with transaction.atomic():
        # The room's serial is counted by the table's save, with its last move: a
        # refusal below rolls back, so nothing is left to count then.
        match = lock_current_match(seat, count=False)
        if match.version != seen:
            raise Conflict("stale_version", f"client saw {seen}, match is at {match.version}")
        if match.status == Match.Status.FINISHED:
            raise Conflict("match_over")
        table = open_table(match, count_on_save=True)
        act(table, match.side_of(seat))
        saved = table.save()
        if saved.status == Match.Status.FINISHED:
            tournament_match_ended(match=saved)  # a tournament's next match, if any
        return saved
