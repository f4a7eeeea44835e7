"""The unit of work of every game action: one locked match and the Turn rows it writes.

A service opens a Table on the match it locked (open_table), applies engine
actions to it, and saves it once: the match's state, version, clocks and
deadline, the games, the Turn rows, the room, and the follow-up tasks it owes
(games.services.outbox), all in the caller's transaction. Locking the match
(lock_current_match) or opening its table also asks for the room's pulse to
be published when that transaction commits (games.services.live): every
action, bot turn, message, rematch, join and absence claim passes here.

Dice: each Game has a secret seed; roll n of a game is derived from it
(games.services.dice), and the seed is revealed when the game ends.
"""

from datetime import datetime

from accounts.recipients import never_mailed
from games.engine import (
    CONDITIONAL,
    Action,
    ActionKind,
    EndReason,
    EngineError,
    Format,
    MatchRules,
    MatchState,
    Phase,
    advance,
    format_play,
    table_to_json,
)
from games.lib import clock, deadlines
from games.lib.errors import Conflict, IllegalMoveError, NotSeatHolder, from_engine
from games.models import Game, Match, Room, Seat, Turn
from games.selectors import vacations
from games.services import analysis, dice, live, outbox, ratings
from games.services.vacations import vacation_end_on_move


class Table:
    """A locked Match, its current Game and the Turn rows one service call writes."""

    def __init__(
        self,
        match: Match,
        seats: dict[int, Seat],
        game: Game,
        now: datetime,
        *,
        count_on_save: bool = False,
    ) -> None:
        self.match = match
        self.seats = seats
        self.game = game
        self.now = now
        self.rules = MatchRules.from_json(match.room.rules)
        self.state = MatchState.from_json(match.state)
        self.dice = dice.GameDice(game)
        self.turns: list[Turn] = []
        self.games = {game.number: game}
        self.old_turn_seat_id = match.turn_seat_id
        self.started_game = False
        # The room's serial is counted by save(), in its UPDATE of the room (open_table).
        self.count_on_save = count_on_save
        # The people who have their forced plays made for them (the bots play their own).
        self.forced_for = frozenset(
            side for side in (0, 1) if _wants_forced_plays(self.seat_of(side))
        )

    def seat_of(self, side: int) -> Seat:
        return self.seats[self.match.seat_number_of(side)]

    def is_bot_side(self, side: int) -> bool:
        return self.seat_of(side).is_bot

    def owing_side(self) -> int | None:
        return self.state.owing_side()

    def require_allowed(self, kind: ActionKind, side: int) -> None:
        if kind in self.state.allowed_actions(side):
            return
        if self.state.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
            raise Conflict("game_over")
        if self.owing_side() != side:
            raise Conflict("not_your_turn")
        raise IllegalMoveError("wrong_phase", f"{kind} is not allowed in {self.state.phase}")

    def apply(self, action: Action, automatic: bool = False) -> None:
        before = self.state
        try:
            after = before.apply(action)
        except EngineError as exc:
            raise from_engine(exc) from None
        self._record(before, after, automatic)
        self.state = after
        if after.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
            self._finish_game()
            if after.phase == Phase.GAME_OVER and self.rules.format != Format.SESSION:
                self.start_next_game(action.side)
        else:
            self.run_automatic()

    def run_automatic(self) -> None:
        """Apply what the table does by itself, one action at a time (each may end a game).

        Opening rolls, rolls for who may not double (or wrote their plays),
        written answers and plays, forced plays for who wants them.
        """
        _, actions = advance(self.state, self.dice, limit=1, forced_for=self.forced_for)
        if actions:
            self.apply(actions[0], automatic=True)

    def start_next_game(self, side: int) -> None:
        self._finish_game()
        self.game = new_game(self.match, self.game.number + 1, self.now)
        self.games[self.game.number] = self.game
        self.dice = dice.GameDice(self.game)
        self.started_game = True
        self.apply(Action(ActionKind.NEXT_GAME, side))

    def _finish_game(self) -> None:
        game = self.game
        if game.status == Game.Status.FINISHED or not self.state.games:
            return
        result = self.state.games[-1]
        game.status = Game.Status.FINISHED
        game.revealed = True
        game.ended_at = self.now
        game.result = result.to_json()
        game.winner_side = result.winner
        game.points = result.points
        analysis.game_analysis_queue(game=game)  # rated by a worker after commit

    def _record(self, before: MatchState, after: MatchState, automatic: bool) -> None:
        # The engine's own record of the action: a roll with no legal play
        # carries play=(), which is what a replay needs.
        action = after.last_action
        assert action is not None, "a state after an action records it"
        side = action.side
        self.game.turn_count += 1
        view_before = before.position_for(side)
        notation = ""
        if action.kind == ActionKind.PLAY and action.play is not None:
            notation = format_play(view_before, action.play)
        self.turns.append(
            _turn_row(
                game=self.game,
                number=self.game.turn_count,
                side=side,
                seat=self.seat_of(side),
                action=action,
                automatic=automatic,
                cube_value=after.cube_value,
                position_before=view_before.position_id(),
                position_after=after.position_for(side).position_id(),
                notation=notation,
                created_at=self.now,
            )
        )

    def save(self) -> Match:
        match, now = self.match, self.now
        match.state = self.state.to_json()
        if self.turns and all(turn.kind in _NOTES for turn in self.turns):
            # Only a player's written notes: the opponent's board and clock stay as they are.
            match.save(update_fields=["state"])
            Turn.objects.bulk_create(self.turns)
            for game in self.games.values():
                game.save(update_fields=["turn_count"])
            if self.count_on_save:
                live.room_moved(match.room_id)  # the writer's board shows them
            return match
        match.version += 1
        owing = self.owing_side()
        turn_seat = self.seat_of(owing) if owing is not None else None
        turn_seat_id = turn_seat.pk if turn_seat else None
        # The turn passed when someone else acted in between, even if it came
        # straight back (the other side's roll had no legal play): the 48 h
        # start again. A player who only rolled still owes the same turn.
        passed = (
            turn_seat_id != self.old_turn_seat_id
            or self.started_game
            or any(turn.side != owing for turn in self.turns if turn.kind not in _NOTES)
        )
        if passed:
            match.turn_seat = turn_seat
            match.turn_started_at = now if turn_seat else None
        if self.state.phase == Phase.MATCH_OVER:
            match.status = Match.Status.FINISHED
            match.winner_side = self.state.winner
            match.ended_at = now
            match.turn_seat = None
            match.turn_started_at = None
        # A player who acts is back from vacation: their clocks run again.
        for user_id in self._acting_users():
            vacation_end_on_move(user_id=user_id, now=now, match_id=match.pk)
        # The absence deadline of the turn now running (None: none applies),
        # standing still while its player is on vacation.
        match.absence_due_at = vacations.turn_clock(match).due_at
        match.save()
        for game in self.games.values():
            game.save()
        if self.turns:
            Turn.objects.bulk_create(self.turns)
        for turn in self.turns:
            if turn.reason == CONDITIONAL and turn.kind in _ANSWERS and not turn.seat.is_bot:
                self._tell_answer_played(turn, turn_seat if passed else None)
        room = match.room
        changes: dict[str, object] = {"last_move_at": now}
        if match.status == Match.Status.FINISHED and room.status == Room.Status.PLAYING:
            changes.update(status=Room.Status.FINISHED, ended_at=now)
        for name, value in changes.items():
            setattr(room, name, value)
        if self.count_on_save:
            live.room_moved(room.pk, **changes)
        else:
            Room.objects.filter(pk=room.pk).update(**changes)
        if match.status == Match.Status.FINISHED:
            # Rated in this same transaction: the match and its rating change together.
            ratings.match_rate(match=match, seats=self.seats)
        _schedule_follow_up(match, turn_seat if match.turn_seat_id else None, turn_changed=passed)
        return match

    def _tell_answer_played(self, answer: Turn, told_turn: Seat | None) -> None:
        """The writer of a written answer hears once that the table played it.

        By its own email (games.mail.send_answer_played) while the game goes
        on with the opponent to play. When the table's follow-ups hand the
        turn straight back to the writer (a pass, and they open the next
        game; a take, and the opponent's roll plays itself), "Es tu turno"
        says it (games.mail.news); when the pass ends the match, the email of
        the end does: one email either way, not two.
        """
        if self.match.status == Match.Status.FINISHED:
            return
        if told_turn is not None and told_turn.pk == answer.seat_id:
            return
        outbox.schedule("games.tasks.answer_played_email", answer.pk)

    def _acting_users(self) -> set[int]:
        """The accounts that chose an action in this unit of work (not the table's
        automatic rolls, nor a forfeit for absence, which is the opponent's doing)."""
        return {
            turn.seat.user_id
            for turn in self.turns
            if not turn.automatic
            and turn.reason != EndReason.ABSENCE
            and turn.seat.user_id is not None
        }


# The Turn kinds that only note what a player wrote ahead.
_NOTES = frozenset({ActionKind.CONDITIONAL_ANSWER, ActionKind.CONDITIONAL_PLAYS})
_ANSWERS = frozenset({ActionKind.TAKE, ActionKind.DROP, ActionKind.BEAVER})


def _wants_forced_plays(seat: Seat) -> bool:
    """An account's choice on its profile (on unless turned off).

    A guest has no profile to say so: their forced plays wait for them, as before.
    """
    user = seat.user
    if seat.is_bot or user is None:
        return False
    profile = getattr(user, "profile", None)
    return True if profile is None else bool(profile.forced_plays)


def _turn_row(*, action: Action, **fields: object) -> Turn:
    return Turn(
        kind=action.kind,
        dice=list(action.dice) if action.dice is not None else None,
        steps=[list(step) for step in action.play] if action.play is not None else None,
        value=action.value,
        reason=action.reason or "",
        table=table_to_json(action.table) if action.table is not None else None,
        **fields,
    )


def lock_current_match(seat: Seat, *, count: bool = True) -> Match:
    """Lock the seat's room's current match (select_for_update): one writer at a time.
    `count`: say the room moved now (games.services.live.room_moved); False for a
    caller whose Table counts it when it saves (open_table's `count_on_save`)."""
    if not isinstance(seat, Seat) or seat.pk is None:
        raise NotSeatHolder()
    match = (
        Match.objects.select_for_update().filter(room_id=seat.room_id).order_by("-number").first()
    )
    if match is None:
        raise Conflict("no_match", "the room is still waiting for a second player")
    if count:
        live.room_moved(match.room_id)  # whoever locks the match to act: published on commit
    return match


def open_table(match: Match, *, count_on_save: bool = False) -> Table:
    """The Table of a match the caller has locked, with its seats and current game.
    The room moved (games.services.live.room_moved): said now (a sweep's or a new
    match's change), or with `count_on_save` by the table's save, in the same
    UPDATE as the room's last move (an action's, lock_current_match(count=False))."""
    if not count_on_save:
        live.room_moved(match.room_id)  # published on commit
    seats = {
        s.number: s
        for s in Seat.objects.filter(room_id=match.room_id).select_related("room", "user__profile")
    }
    match.room = seats[1].room
    game = match.games.order_by("-number").first()
    assert game is not None, "a match starts with its first game"
    return Table(match, seats, game, clock.now(), count_on_save=count_on_save)


def start_match(
    room: Room, *, number: int, side0_seat_number: int, now: datetime, version: int = 0
) -> Match:
    """Create the room's match `number` and play what the table plays by itself (the opening)."""
    rules = MatchRules.from_json(room.rules)
    match = Match.objects.create(
        room=room,
        number=number,
        side0_seat_number=side0_seat_number,
        state=MatchState.new(rules).to_json(),
        version=version,
        created_at=now,
    )
    new_game(match, 1, now)
    table = open_table(match)
    table.started_game = True
    table.run_automatic()
    return table.save()


def new_game(match: Match, number: int, now: datetime) -> Game:
    seed = dice.current().new_seed()
    return Game.objects.create(
        match=match,
        number=number,
        seed=seed,
        commitment=dice.seed_commitment(seed),
        started_at=now,
    )


def _schedule_follow_up(match: Match, turn_seat: Seat | None, *, turn_changed: bool) -> None:
    """Record, in this transaction: the bot's move, the "your turn" email for a
    person who may be mailed, the end's email (games.services.outbox publishes them on commit)."""
    if match.status == Match.Status.FINISHED:
        outbox.schedule("games.tasks.match_ended_email", match.pk)
    if turn_seat is None:
        return
    if turn_seat.is_bot:
        # Every time: after its own roll the bot still has to move.
        outbox.schedule("games.tasks.bot_turn", match.pk, match.version)
    elif turn_changed and not never_mailed(turn_seat):
        # Not for a guest with no address: a row, a broker message and a worker's
        # run that could only find nobody to tell, on every move (docs/LOAD.md).
        # Owed for the turn (its start is its identity), not for this version:
        # the waiting player's own actions move the version, never the turn.
        started = match.turn_started_at.isoformat() if match.turn_started_at else None
        pause = deadlines.TURN_EMAIL_PAUSE
        outbox.schedule("games.tasks.turn_email", match.pk, match.version, started, delay=pause)
        if turn_seat.user_id is not None:
            # Its phone too, if the account allowed notifications (games.mail.push).
            outbox.schedule("games.tasks.turn_push", match.pk, match.version, started, delay=pause)
