"""The only code that changes a room or a game.

One function per action, keyword-only arguments. Each one:

1. opens a transaction and locks the room's current Match row (select_for_update),
   so one writer at a time acts on a game;
2. checks the actor's seat and the version the client saw (stale -> 409);
3. asks the engine (a refusal -> 409 out of turn / 422 against the rules);
4. writes one Turn row per action, the automatic ones too (opening roll, a roll
   for a player who may not double, the next game's start);
5. bumps the version, moves the clocks and records the follow-up tasks it owes
   (games.outbox) in the same transaction; they are published on commit, and
   by the follow-up sweep when that publish fails.

Dice: each Game has a secret seed; roll n of a game is derived from it
(games.dice_source), and the seed is revealed when the game ends.
"""

from collections.abc import Sequence
from datetime import timedelta

from django.db import IntegrityError, transaction

from games import analysis_service, cleaning, clock, deadlines, dice_source, outbox
from games.bots import BOT_NAMES
from games.engine import (
    EngineError,
    IllegalMove,
    InvalidInput,
    format_play,
    greedy_bearoff_table,
    parse_play,
    table_to_json,
)
from games.engine.match import Action, ActionKind, Format, MatchRules, MatchState, Phase, advance
from games.errors import BadInput, Conflict, IllegalMoveError, NotFound, NotSeatHolder, from_engine
from games.models import Game, Match, Room, Seat, Turn

# How often a seat's last_seen_at is written at most (the board polls).
SEEN_EVERY = timedelta(seconds=30)


# --- rooms and seats -------------------------------------------------------


def room_create(
    *,
    rules: MatchRules | dict,
    nickname: str,
    email: str = "",
    email_consent: bool = False,
    user=None,
    bot: str | None = None,
    language: str = "es",
) -> Seat:
    """Open a room and sit its host at seat 1; against a bot the match starts at once.

    The returned seat carries `.token`, the private seat secret, this one time.
    """
    rules = cleaning.clean_rules(rules)
    nickname = cleaning.clean_nickname(nickname)
    email, email_consent = cleaning.clean_email(email, email_consent)
    if bot is not None and bot not in BOT_NAMES:
        raise BadInput("bad_bot", f"unknown bot {bot!r}")
    now = clock.now()
    with transaction.atomic():
        room = Room.objects.create(
            rules=rules.to_json(), bot=bot or "", created_at=now, last_move_at=now
        )
        host = _new_seat(room, 1, nickname, email, email_consent, user, language, now)
        if bot:
            _new_seat(room, 2, bot.capitalize(), "", False, None, "es", now)
            room.status = Room.Status.PLAYING
            room.save(update_fields=["status"])
            _start_match(room, number=1, side0_seat_number=1, now=now)
    return host


def room_join(
    *,
    room: Room,
    nickname: str,
    email: str = "",
    email_consent: bool = False,
    user=None,
    language: str = "es",
) -> Seat:
    """Take the free seat of a waiting room and start the match (opening roll included).

    The returned seat carries `.token`, the private seat secret, this one time.
    """
    nickname = cleaning.clean_nickname(nickname)
    email, email_consent = cleaning.clean_email(email, email_consent)
    now = clock.now()
    with transaction.atomic():
        try:
            room = Room.objects.select_for_update().get(pk=room.pk)
        except Room.DoesNotExist:
            raise NotFound("not_found") from None
        if room.status != Room.Status.WAITING:
            raise Conflict("room_full", f"room is {room.status}")
        if user is not None and room.seats.filter(user=user).exists():
            raise Conflict("already_seated")
        seat = _new_seat(room, 2, nickname, email, email_consent, user, language, now)
        room.status = Room.Status.PLAYING
        room.last_move_at = now
        room.save(update_fields=["status", "last_move_at"])
        _start_match(room, number=1, side0_seat_number=1, now=now)
        outbox.schedule("games.tasks.opponent_joined_email", room.pk)
    return seat


def seats_claim_for_user(*, user, seat_ids: Sequence[int]) -> int:
    """Attach this browser's guest seats to an account; seats of another account stay put."""
    ids = [i for i in seat_ids if isinstance(i, int) and not isinstance(i, bool)]
    with transaction.atomic():
        return Seat.objects.filter(pk__in=ids, user__isnull=True).update(user=user)


def seat_seen(*, seat: Seat) -> None:
    """Note that the seat's holder is looking at the board (no email while they are)."""
    now = clock.now()
    if seat.last_seen_at and now - seat.last_seen_at < SEEN_EVERY:
        return
    Seat.objects.filter(pk=seat.pk).update(last_seen_at=now)
    seat.last_seen_at = now


# --- game actions ------------------------------------------------------------


def game_roll(*, seat: Seat, version) -> Match:
    """Roll the dice for the player on turn (who might have doubled instead)."""

    def act(table, side):
        # Ask before drawing: a refused roll must not touch the dice stream.
        table.require_allowed("roll", side)
        table.apply(Action("roll", side, dice=table.dice.roll()))

    return _act(seat, version, act)


def game_double(*, seat: Seat, version) -> Match:
    return _act(seat, version, lambda table, side: table.apply(Action("double", side)))


def game_take(*, seat: Seat, version) -> Match:
    return _act(seat, version, lambda table, side: table.apply(Action("take", side)))


def game_drop(*, seat: Seat, version) -> Match:
    return _act(seat, version, lambda table, side: table.apply(Action("drop", side)))


def game_beaver(*, seat: Seat, version) -> Match:
    return _act(seat, version, lambda table, side: table.apply(Action("beaver", side)))


def game_play(*, seat: Seat, version, play) -> Match:
    """Play the whole turn: `play` is a list of [src, dst] steps from the mover's side."""
    steps = cleaning.clean_play(play)
    return _act(seat, version, lambda table, side: table.apply(Action("play", side, play=steps)))


def game_resign_offer(*, seat: Seat, version, value) -> Match:
    """Offer the current game as single (1), gammon (2) or backgammon (3)."""
    if isinstance(value, bool) or value not in (1, 2, 3):
        raise BadInput("bad_value", f"resign value {value!r}")
    return _act(
        seat, version, lambda table, side: table.apply(Action("resign_offer", side, value=value))
    )


def game_resign_accept(*, seat: Seat, version) -> Match:
    return _act(seat, version, lambda table, side: table.apply(Action("resign_accept", side)))


def game_resign_decline(*, seat: Seat, version) -> Match:
    return _act(seat, version, lambda table, side: table.apply(Action("resign_decline", side)))


def match_resign(*, seat: Seat, version) -> Match:
    """Give up the whole match (or the partida simple) at once."""
    return _act(
        seat,
        version,
        lambda table, side: table.apply(Action("forfeit", side, reason="resign")),
    )


def game_claim_absence(*, seat: Seat, version) -> Match:
    """Win by absence: the opponent has owed an action for 48 hours."""

    def act(table, side):
        match = table.match
        absent = 1 - side
        if table.owing_side() != absent:
            raise Conflict("not_your_turn", "the claimer is the one on turn")
        if table.is_bot_side(absent):
            raise IllegalMoveError("wrong_phase", "no absence against the computer")
        turn = deadlines.TurnClock.of(match, against_bot=table.is_bot_side(absent))
        if not turn.claimable(table.now):
            raise IllegalMoveError("too_early")
        table.apply(Action("forfeit", absent, reason="absence"))

    return _act(seat, version, act)


def absence_keep_waiting(*, seat: Seat, version) -> Match:
    """The waiting player lets this turn run past 48 h without automatic closure."""

    def act(table, side):
        if table.owing_side() != 1 - side:
            raise Conflict("not_waiting", "only the waiting player may keep waiting")
        table.match.absence_waived_for = table.match.turn_started_at

    return _act(seat, version, act)


def session_stop(*, seat: Seat, version) -> Match:
    """End a sesión libre between games."""

    return _act(seat, version, lambda table, side: table.apply(Action("stop", side)))


def game_next(*, seat: Seat, version) -> Match:
    """Start the next game of a sesión libre (matches go on by themselves)."""

    def act(table, side):
        if table.rules.format != Format.SESSION:
            raise IllegalMoveError("not_session")
        table.start_next_game(side)

    return _act(seat, version, act)


# --- written ahead: what the table plays for a player ---------------------------
# Private notes of one player: they move no clock and no version (the
# opponent's next action stays valid, see _Table.save), and only the writer
# sees them until the table plays them.


def game_conditional_answer(*, seat: Seat, version, answer) -> Match:
    """Write (or clear, with None) the answer to the opponent's next double."""
    answer = cleaning.clean_answer(answer)
    return _act(
        seat,
        version,
        lambda table, side: table.apply(Action(ActionKind.CONDITIONAL_ANSWER, side, reason=answer)),
    )


def game_conditional_plays(*, seat: Seat, version, plays) -> Match:
    """Write the plays of the next turn, one per roll (an empty list clears them).

    Each entry's play is a list of steps or a text in notation ("13/7 13/8"),
    read from the writer's side against the position the opponent cannot change.
    """
    entries = cleaning.clean_play_table(plays)

    def act(table, side):
        position = table.state.position_for(side)
        written = []
        for dice, play in entries:
            if isinstance(play, str):
                try:
                    play = parse_play(position, dice, play)
                except (InvalidInput, IllegalMove) as exc:
                    if table.state.may_record_plays(side):
                        raise from_engine(exc) from None
                    play = ()  # the engine's refusal below says why nothing can be written
            written.append((dice, tuple(play)))
        table.apply(Action(ActionKind.CONDITIONAL_PLAYS, side, table=tuple(written)))

    return _act(seat, version, act)


def game_conditional_greedy(*, seat: Seat, version) -> Match:
    """Fill the next turn's table with the greedy bear-off play of each of the 21 rolls."""

    def act(table, side):
        position = table.state.position_for(side)
        if not table.state.may_record_plays(side):
            raise IllegalMoveError("opponent_can_change")
        try:
            plays = greedy_bearoff_table(position)
        except EngineError as exc:
            raise from_engine(exc) from None
        table.apply(Action(ActionKind.CONDITIONAL_PLAYS, side, table=plays))

    return _act(seat, version, act)


# Every game action a seat may take, by the name the API, the forms and the bots
# use: the one list of them. The engine's own kinds are ActionKind members; the
# two absence actions are the site's (the engine only knows the forfeit they may
# lead to). games.api.ACTIONS adds how each reads its arguments.
ACTIONS = {
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
    "cond_greedy": game_conditional_greedy,
    "claim_absence": game_claim_absence,
    "keep_waiting": absence_keep_waiting,
}


def game_act(*, seat: Seat, version, kind: str, play=None, value=None) -> Match:
    """Dispatch one action by name (a bot's decision)."""
    service = ACTIONS.get(kind) if isinstance(kind, str) else None
    if service is None:
        raise BadInput("bad_input", f"unknown action {kind!r}")
    arguments = {ActionKind.PLAY: {"play": play}, ActionKind.RESIGN_OFFER: {"value": value}}
    return service(seat=seat, version=version, **arguments.get(kind, {}))


# --- sweeps (periodic tasks) ---------------------------------------------------
# Each takes one id found by a selectors.*_due query, locks the row with
# skip_locked (another worker already holds it: skip, the next sweep sees it
# again), re-checks everything and acts at most once.


def absence_close(*, match_id: int) -> Match | None:
    """Close a game whose player on turn has owed an action for 48 h: the waiting player wins.

    Not when the waiting player chose to keep waiting this turn, and never in a
    room against the computer (its games may sleep until the room expires).
    """
    with transaction.atomic():
        match = _lock_for_sweep(match_id)
        if match is None or match.turn_seat_id is None:
            return None
        # Re-checked under the lock: the turn may have passed, or been waived.
        turn = deadlines.TurnClock.of(match, against_bot=bool(match.room.bot))
        if turn.closes_at is None:
            return None
        table = _open_table(match)
        if not turn.closes(table.now) or table.owing_side() is None:
            return None
        table.apply(Action("forfeit", table.owing_side(), reason="absence"))
        return table.save()


def room_expire(*, room_id: int) -> Room | None:
    """Expire a room with no move for seven days; its match ends with no winner."""
    now = clock.now()
    with transaction.atomic():
        # Lock the current match first, as every action does, then the room.
        latest = Match.objects.filter(room_id=room_id).order_by("-number").values("pk").first()
        match = _lock_for_sweep(latest["pk"]) if latest else None
        if latest and match is None:
            return None  # someone is acting right now
        room = Room.objects.select_for_update().filter(pk=room_id).first()
        if room is None or not room.is_active or not deadlines.room_expired(room.last_move_at, now):
            return None
        room.status = Room.Status.EXPIRED
        room.ended_at = now
        room.save(update_fields=["status", "ended_at"])
        if match is not None and match.status == Match.Status.PLAYING:
            match.status = Match.Status.FINISHED
            match.ended_at = now
            match.turn_seat = None
            match.turn_started_at = None
            match.absence_due_at = None
            match.version += 1
            match.save()
            # No roll will ever be drawn again: the seed can be checked.
            match.games.filter(status=Game.Status.PLAYING).update(
                status=Game.Status.FINISHED, revealed=True, ended_at=now
            )
            outbox.schedule("games.tasks.match_ended_email", match.pk)
        return room


def _lock_for_sweep(match_id: int) -> Match | None:
    return (
        Match.objects.select_for_update(skip_locked=True, of=("self",))
        .select_related("room")
        .filter(pk=match_id, status=Match.Status.PLAYING)
        .first()
    )


# --- rematch -------------------------------------------------------------------


def rematch_offer(*, seat: Seat) -> Match:
    """Offer a rematch after the match; when the other seat already offered, it starts."""
    with transaction.atomic():
        match = _lock_current_match(seat)
        if match.status != Match.Status.FINISHED:
            raise Conflict("match_not_over")
        offered = match.rematch_offered_by_id
        if offered is not None and offered != seat.pk:
            return _start_rematch(match)
        if offered is None:
            match.rematch_offered_by = seat
            match.version += 1
            match.save(update_fields=["rematch_offered_by", "version"])
            if match.room.bot:
                outbox.schedule("games.tasks.bot_turn", match.pk, match.version)
        return match


def rematch_accept(*, seat: Seat) -> Match:
    """Accept the other seat's rematch offer: a new match, sides swapped."""
    with transaction.atomic():
        match = _lock_current_match(seat)
        if match.status != Match.Status.FINISHED:
            raise Conflict("match_not_over")
        if match.rematch_offered_by_id in (None, seat.pk):
            raise IllegalMoveError("nothing_offered", "no rematch offer from the other seat")
        return _start_rematch(match)


def _start_rematch(match: Match) -> Match:
    # A second accept (another tab) waited on this match's lock while the first
    # started the rematch: the locked match is no longer the room's current one.
    if Match.objects.filter(room_id=match.room_id, number__gt=match.number).exists():
        raise Conflict("stale_version", "the rematch has already started")
    now = clock.now()
    room = match.room
    room.status = Room.Status.PLAYING
    room.ended_at = None
    room.last_move_at = now
    room.save(update_fields=["status", "ended_at", "last_move_at"])
    # The old match's version moves too, so a board showing it reloads.
    match.version += 1
    match.save(update_fields=["version"])
    return _start_match(
        room,
        number=match.number + 1,
        side0_seat_number=3 - match.side0_seat_number,
        now=now,
        # Versions keep growing across the room's matches, so a client's
        # "newer than what I saw" stays true after a rematch.
        version=match.version,
    )


# --- the table: one locked match and the actions applied to it -----------------


class _Table:
    """A locked Match, its current Game and the Turn rows one service call writes."""

    def __init__(self, match: Match, seats: dict[int, Seat], game: Game, now):
        self.match = match
        self.seats = seats
        self.game = game
        self.now = now
        self.rules = MatchRules.from_json(match.room.rules)
        self.state = MatchState.from_json(match.state)
        self.dice = dice_source.GameDice(game)
        self.turns = []
        self.games = {game.number: game}
        self.old_turn_seat_id = match.turn_seat_id
        self.started_game = False
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

    def require_allowed(self, kind: str, side: int) -> None:
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
        self.game = _new_game(self.match, self.game.number + 1, self.now)
        self.games[self.game.number] = self.game
        self.dice = dice_source.GameDice(self.game)
        self.started_game = True
        self.apply(Action("next_game", side))

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
        analysis_service.game_analysis_queue(game=game)  # rated by a worker after commit

    def _record(self, before: MatchState, after: MatchState, automatic: bool) -> None:
        # The engine's own record of the action: a roll with no legal play
        # carries play=(), which is what a replay needs.
        action = after.last_action
        side = action.side
        self.game.turn_count += 1
        view_before = before.position_for(side)
        notation = ""
        if action.kind == "play" and action.play is not None:
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
        # The absence deadline of the turn now running (None: none applies).
        match.absence_due_at = deadlines.TurnClock.of(
            match, against_bot=bool(match.room.bot)
        ).due_at
        match.save()
        for game in self.games.values():
            game.save()
        if self.turns:
            Turn.objects.bulk_create(self.turns)
        room = match.room
        room.last_move_at = now
        fields = ["last_move_at"]
        if match.status == Match.Status.FINISHED and room.status == Room.Status.PLAYING:
            room.status = Room.Status.FINISHED
            room.ended_at = now
            fields += ["status", "ended_at"]
        room.save(update_fields=fields)
        _schedule_follow_up(match, turn_seat if match.turn_seat_id else None, turn_changed=passed)
        return match


# The Turn kinds that only note what a player wrote ahead.
_NOTES = frozenset({ActionKind.CONDITIONAL_ANSWER, ActionKind.CONDITIONAL_PLAYS})


def _wants_forced_plays(seat: Seat) -> bool:
    """A person's choice on their profile; on for guests, who have none (the default)."""
    if seat.is_bot:
        return False
    user = seat.user
    if user is None:
        return True
    profile = getattr(user, "profile", None)
    return True if profile is None else profile.forced_plays


def _turn_row(*, action: Action, **fields) -> Turn:
    return Turn(
        kind=action.kind,
        dice=list(action.dice) if action.dice is not None else None,
        steps=[list(step) for step in action.play] if action.play is not None else None,
        value=action.value,
        reason=action.reason or "",
        table=table_to_json(action.table) if action.table is not None else None,
        **fields,
    )


def _act(seat: Seat, version, act) -> Match:
    version = cleaning.clean_version(version)
    with transaction.atomic():
        match = _lock_current_match(seat)
        if match.version != version:
            raise Conflict("stale_version", f"client saw {version}, match is at {match.version}")
        if match.status == Match.Status.FINISHED:
            raise Conflict("match_over")
        table = _open_table(match)
        act(table, match.side_of(seat))
        return table.save()


def _lock_current_match(seat: Seat) -> Match:
    if not isinstance(seat, Seat) or seat.pk is None:
        raise NotSeatHolder()
    match = (
        Match.objects.select_for_update().filter(room_id=seat.room_id).order_by("-number").first()
    )
    if match is None:
        raise Conflict("no_match", "the room is still waiting for a second player")
    return match


def _open_table(match: Match) -> _Table:
    seats = {
        s.number: s
        for s in Seat.objects.filter(room_id=match.room_id).select_related("room", "user__profile")
    }
    match.room = seats[1].room
    game = match.games.order_by("-number").first()
    return _Table(match, seats, game, clock.now())


def _start_match(room: Room, *, number: int, side0_seat_number: int, now, version=0) -> Match:
    rules = MatchRules.from_json(room.rules)
    match = Match.objects.create(
        room=room,
        number=number,
        side0_seat_number=side0_seat_number,
        state=MatchState.new(rules).to_json(),
        version=version,
        created_at=now,
    )
    _new_game(match, 1, now)
    table = _open_table(match)
    table.started_game = True
    table.run_automatic()
    return table.save()


def _new_game(match: Match, number: int, now) -> Game:
    seed = dice_source.current().new_seed()
    return Game.objects.create(
        match=match,
        number=number,
        seed=seed,
        commitment=dice_source.seed_commitment(seed),
        started_at=now,
    )


def _new_seat(room, number, nickname, email, email_consent, user, language, now) -> Seat:
    seat = Seat(
        room=room,
        number=number,
        nickname=nickname,
        email=email,
        email_consent=email_consent,
        user=user,
        language=language if language in ("es", "en") else "es",
        created_at=now,
        last_seen_at=now,  # the person is on the site right now: no email at once
    )
    token = seat.set_token()
    try:
        with transaction.atomic():
            seat.save()
    except IntegrityError:
        raise Conflict("room_full", "seat taken") from None
    seat.token = token
    return seat


def _schedule_follow_up(match: Match, turn_seat: Seat | None, *, turn_changed: bool) -> None:
    """Record, in this transaction: the bot's move, the "your turn" email for a
    person, the end's email (games.outbox publishes them on commit)."""
    if match.status == Match.Status.FINISHED:
        outbox.schedule("games.tasks.match_ended_email", match.pk)
    if turn_seat is None:
        return
    if turn_seat.is_bot:
        # Every time: after its own roll the bot still has to move.
        outbox.schedule("games.tasks.bot_turn", match.pk, match.version)
    elif turn_changed:
        outbox.schedule(
            "games.tasks.turn_email", match.pk, match.version, delay=deadlines.TURN_EMAIL_PAUSE
        )
