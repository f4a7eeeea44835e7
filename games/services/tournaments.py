"""Tournaments: host, join, leave, start, withdraw, cancel, and the next match.

One function per action, keyword-only, each a transaction. The rules are
games.tournaments' (pure); this module stores them. Each match of a
tournament is an ordinary room (games.services.rooms), so the board, the
cube, Crawford, the dice, the messages, the absence claim and sweep and the
analysis are the same as anywhere; rooms of a tournament offer no rematch.

The state of a tournament is always rebuilt from its matches (`_refresh`):
the bracket's pairings come from the winners so far, every match whose two
players are known and which has not opened yet opens then, once. That is
why a next round's match opens as soon as both its players are known, not
when the round is over, and why two semifinals ending at the same moment
open the final once: `_refresh` runs only under the tournament's row lock,
and the second to get it finds the final open.

Lock order, everywhere, so that two of these cannot deadlock: a room's
current Match row first (an action, a sweep, a withdrawal's forfeits), then
the Tournament row; entries and tournament matches are only written under it.
"""

from datetime import datetime, timedelta

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction

from games.engine import Action, ActionKind, EndReason, MatchState
from games.lib import clock
from games.lib.errors import BadInput, Conflict, Forbidden, NotFound
from games.models import Entry, Match, Tournament, TournamentMatch
from games.selectors import lobby
from games.services import cleaning, outbox
from games.services.rooms import room_create, room_join
from games.services.table import open_table
from games.tournaments import (
    GROUP_MAX,
    GROUP_MIN,
    KNOCKOUT_MAX,
    KNOCKOUT_MIN,
    Slot,
    groups,
    knockout,
    round_count,
    round_robin,
    standings,
)
from games.tournaments.league import Result

Someone = User | AnonymousUser | None

# An account's own tournaments: how many open or running at once, how many players.
HOSTED_AT_ONCE = 2
HOSTED_PLAYERS_MAX = 32
# How long an account's tournament waits for its players at most.
OPEN_AT_MOST = timedelta(days=14)
NAME_MAX = 60


def tournament_create(
    *,
    host: Someone,
    name: object,
    kind: object,
    capacity: object,
    lengths: object,
    minimum: object = None,
    group_size: object = GROUP_MAX,
    days_per_move: object = None,
    vacation_cap_days: object = 7,
    rating_min: object = None,
    rating_max: object = None,
    private: bool = False,
    starts_at: datetime | None = None,
    site_key: str = "",
) -> Tournament:
    """Open a tournament to join. `host` None: one of the site's own (the beat's).

    An account hosts HOSTED_AT_ONCE open or running at most, of
    HOSTED_PLAYERS_MAX players at most; the site's go to 64. A knockout has a
    length per round, the last for the final (Tournament.length_of: [3, 5]
    is 3 points up to the final, 5 in it); a league, one.
    It starts as soon as it is full, or at `starts_at` with `minimum` players
    (every seat by default); fewer then, and it is cancelled.
    """
    account = None if host is None else _account(host)
    now = clock.now()
    if not isinstance(name, str) or not cleaning.storable_text(name):
        raise BadInput("bad_tournament_name")
    name = " ".join(name.split())
    if not 1 <= len(name) <= NAME_MAX:
        raise BadInput("bad_tournament_name")
    if not isinstance(kind, str) or kind not in Tournament.Kind.values:
        raise BadInput("bad_tournament", f"kind {kind!r}")
    players_max = KNOCKOUT_MAX if account is None else HOSTED_PLAYERS_MAX
    size = _whole(capacity, KNOCKOUT_MIN, players_max)
    least = size if minimum in (None, "") else _whole(minimum, KNOCKOUT_MIN, size)
    group = _whole(group_size, GROUP_MIN, GROUP_MAX)
    if not isinstance(lengths, (list, tuple)) or not lengths:
        raise BadInput("bad_tournament", "lengths")
    # Each a match length the rules allow (1 to 25 points).
    points = [_whole(length, 1, 99) for length in lengths]
    for length in points:
        cleaning.clean_rules({"format": "match", "length": length})
    rounds = round_count(size) if kind == Tournament.Kind.KNOCKOUT else 1
    if len(points) > rounds:
        raise BadInput("bad_tournament", f"{len(points)} lengths for {rounds} rounds")
    days = cleaning.clean_days_per_move(days_per_move)
    cap = _whole(vacation_cap_days, 0, 30)
    low, high = cleaning.clean_rating_range(rating_min, rating_max)
    starts = starts_at or now + timedelta(days=7)
    if not now < starts <= now + (OPEN_AT_MOST if account else timedelta(days=31)):
        raise BadInput("bad_tournament", "start")
    with transaction.atomic():
        if account is not None:
            # One host's tournaments one at a time: two at once cannot pass the cap together.
            User.objects.select_for_update().filter(pk=account.pk).first()
            hosting = Tournament.objects.filter(host=account, status__in=Tournament.ACTIVE)
            if hosting.count() >= HOSTED_AT_ONCE:
                raise Conflict("too_many_tournaments")
        return Tournament.objects.create(
            name=name,
            kind=kind,
            host=account,
            site_key=site_key,
            private=bool(private),
            capacity=size,
            minimum=least,
            group_size=group,
            lengths=points,
            days_per_move=days,
            vacation_cap_days=cap,
            rating_min=low,
            rating_max=high,
            starts_at=starts,
            created_at=now,
        )


def tournament_join(*, tournament: Tournament, user: Someone) -> Entry:
    """Take a seat; the last seat starts the tournament at once.

    Two players asking for the last seat at the same instant: the second
    waits on the tournament's lock, then finds it running (409).
    """
    account = _account(user)
    rating = lobby.rating_for(account)
    with transaction.atomic():
        locked = _lock(tournament)
        if locked.status != Tournament.Status.OPEN:
            raise Conflict("tournament_not_open")
        if locked.rating_min is not None and rating < locked.rating_min:
            raise Forbidden("tournament_rating")
        if locked.rating_max is not None and rating > locked.rating_max:
            raise Forbidden("tournament_rating")
        if locked.entries.filter(user=account).exists():
            raise Conflict("already_entered")
        if locked.entries.count() >= locked.capacity:
            raise Conflict("tournament_full")
        entry = Entry.objects.create(tournament=locked, user=account, joined_at=clock.now())
        if locked.entries.count() >= locked.capacity:
            _start(locked)
        return entry


def tournament_leave(*, tournament: Tournament, user: Someone) -> None:
    """Give back a seat before the start."""
    account = _account(user)
    with transaction.atomic():
        locked = _lock(tournament)
        if locked.status != Tournament.Status.OPEN:
            raise Conflict("tournament_not_open")
        deleted, _ = locked.entries.filter(user=account).delete()
        if not deleted:
            raise Conflict("not_entered")


def tournament_start_due(*, tournament_id: int) -> Tournament | None:
    """The sweep's: at its start an open tournament starts with its minimum, or is
    cancelled and those who joined are told. None when there was nothing to do."""
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if locked is None or locked.status != Tournament.Status.OPEN:
            return None
        if locked.starts_at > clock.now():
            return None
        if locked.entries.count() >= locked.minimum:
            _start(locked)
        else:
            locked.status = Tournament.Status.CANCELLED
            locked.ended_at = clock.now()
            locked.save(update_fields=["status", "ended_at"])
            outbox.schedule("games.tasks.tournament_cancelled_email", locked.pk)
        return locked


def tournament_withdraw(*, tournament: Tournament, user: Someone) -> Entry:
    """Leave a running tournament: every open match is lost now, every later one
    is a walkover for the opponent (a knockout's next, a league's rest)."""
    account = _account(user)
    entry = Entry.objects.filter(tournament_id=tournament.pk, user=account).first()
    if entry is None:
        raise Conflict("not_entered")
    with transaction.atomic():
        # The rooms' matches first (the lock order), in id order; then the tournament.
        rooms = _open_rooms_of(entry)
        matches = list(
            Match.objects.select_for_update(of=("self",))
            .filter(room_id__in=rooms, status=Match.Status.PLAYING)
            .order_by("pk")
        )
        locked = _lock(tournament)
        if locked.status != Tournament.Status.RUNNING:
            raise Conflict("tournament_not_running")
        entry = Entry.objects.get(pk=entry.pk)
        if entry.status == Entry.Status.WITHDRAWN:
            raise Conflict("already_withdrawn")
        entry.status = Entry.Status.WITHDRAWN
        entry.save(update_fields=["status"])
        for match in matches:
            table = open_table(match)
            seat = next(s for s in table.seats.values() if s.user_id == account.pk)
            side = match.side_of(seat)
            table.apply(Action(ActionKind.FORFEIT, side, reason=EndReason.RESIGN))
            _record_result(locked, table.save())
        _refresh(locked)
        return entry


def tournament_match_ended(*, match: Match, winner_side: int | None = None) -> None:
    """A room's match ended (won, by absence, resigned, abandoned, expired): if it is
    a tournament's, record the result and open what that makes known.

    Called in the transaction that ended it, with its Match row locked.
    `winner_side`: for an end with no winner of its own (an expired room).
    """
    tournament_id = (
        TournamentMatch.objects.filter(room_id=match.room_id)
        .values_list("tournament_id", flat=True)
        .first()
    )
    if tournament_id is None:
        return
    locked = Tournament.objects.select_for_update().get(pk=tournament_id)
    _record_result(locked, match, winner_side)
    _refresh(locked)


# --- the parts ---------------------------------------------------------------------


def _record_result(tournament: Tournament, match: Match, winner_side: int | None = None) -> None:
    row = TournamentMatch.objects.filter(room_id=match.room_id).first()
    if row is None or row.status != TournamentMatch.Status.PLAYING:
        return  # recorded already
    side = match.winner_side if match.winner_side is not None else winner_side
    if side is None:
        side = 0
    state = MatchState.from_json(match.state)
    # Seat 1 is player a (the room's host), seat 2 player b.
    a_side = 0 if match.side0_seat_number == 1 else 1
    won_by_a = side == a_side
    score = {a_side: state.score[a_side], 1 - a_side: state.score[1 - a_side]}
    # An end before the length (resigned, absent, withdrawn) counts as the length reached.
    score[side] = max(score[side], row.length)
    row.points_a, row.points_b = score[a_side], score[1 - a_side]
    row.winner_id = row.player_a_id if won_by_a else row.player_b_id
    row.decided = TournamentMatch.Decided.PLAY
    row.status = TournamentMatch.Status.FINISHED
    row.ended_at = clock.now()
    row.save()
    if tournament.kind == Tournament.Kind.KNOCKOUT:
        loser = row.player_b_id if won_by_a else row.player_a_id
        Entry.objects.filter(pk=loser or 0, status=Entry.Status.IN).update(status=Entry.Status.OUT)


def _start(tournament: Tournament) -> None:
    """Seed by rating, create every match of the bracket or the groups, open the first."""
    now = clock.now()
    entries = list(tournament.entries.select_related("user"))
    rated = sorted(
        ((lobby.rating_for(entry.user), entry) for entry in entries),
        key=lambda pair: (-pair[0], pair[1].joined_at, pair[1].pk),
    )
    for seed, (rating, entry) in enumerate(rated, start=1):
        entry.seed, entry.rating = seed, rating
    by_seed = {entry.seed: entry for _, entry in rated}
    rows = []
    if tournament.kind == Tournament.Kind.KNOCKOUT:
        bracket = knockout(len(entries))
        for slot in bracket.slots():
            rows.append(
                TournamentMatch(
                    tournament=tournament,
                    round=slot.round,
                    index=slot.index,
                    length=tournament.length_of(slot.round, bracket.rounds),
                )
            )
    else:
        for number, group in enumerate(groups(len(entries), largest=tournament.group_size)):
            for entry_seed in group:
                by_seed[entry_seed].group = number
            for round_, pairs in enumerate(round_robin(group), start=1):
                for index, (a, b) in enumerate(pairs):
                    rows.append(
                        TournamentMatch(
                            tournament=tournament,
                            group=number,
                            round=round_,
                            index=index,
                            length=tournament.length_of(1),
                            player_a=by_seed[a],
                            player_b=by_seed[b],
                        )
                    )
    Entry.objects.bulk_update(entries, ["seed", "rating", "group"])
    TournamentMatch.objects.bulk_create(rows)
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = now
    tournament.save(update_fields=["status", "started_at"])
    _refresh(tournament)


def _refresh(tournament: Tournament) -> None:
    """Rebuild the tournament from its matches and open every match now known.

    Under the tournament's lock. A match whose player withdrew is a walkover
    as soon as it is known, which may make the next one known: round again
    until nothing changes.
    """
    entries = {entry.pk: entry for entry in tournament.entries.select_related("user")}
    rows = list(tournament.matches.all())
    changed = True
    while changed:
        changed = False
        if tournament.kind == Tournament.Kind.KNOCKOUT:
            bracket = knockout(len(entries))
            seed_of = {entry.pk: entry.seed or 0 for entry in entries.values()}
            entry_of = {entry.seed: entry for entry in entries.values()}
            winners = {
                Slot(row.round, row.index): seed_of[row.winner_id]
                for row in rows
                if row.winner_id is not None
            }
            pairings = bracket.pairings(winners)
            for row in rows:
                a, b = pairings[Slot(row.round, row.index)]
                player_a = entry_of[a].pk if a is not None else None
                player_b = entry_of[b].pk if b is not None else None
                if (row.player_a_id, row.player_b_id) != (player_a, player_b):
                    row.player_a_id, row.player_b_id = player_a, player_b
                    row.save(update_fields=["player_a", "player_b"])
        for row in rows:
            if (
                row.status == TournamentMatch.Status.WAITING
                and row.player_a_id is not None
                and row.player_b_id is not None
            ):
                changed |= _open(tournament, row, entries)
    if all(row.status == TournamentMatch.Status.FINISHED for row in rows):
        _finish(tournament, rows, entries)


def _open(tournament: Tournament, row: TournamentMatch, entries: dict[int, Entry]) -> bool:
    """Open a match whose players are known: a room, or a walkover when one withdrew.
    True for a walkover (a result, which may make another match known)."""
    assert row.player_a_id is not None and row.player_b_id is not None
    a, b = entries[row.player_a_id], entries[row.player_b_id]
    now = clock.now()
    row.opened_at = now
    gone = [entry for entry in (a, b) if entry.status == Entry.Status.WITHDRAWN]
    if gone:
        winner = b if a in gone and b not in gone else a
        row.winner_id = winner.pk
        row.decided = TournamentMatch.Decided.WALKOVER
        row.status = TournamentMatch.Status.FINISHED
        row.ended_at = now
        if winner is a:
            row.points_a = row.length
        else:
            row.points_b = row.length
        row.save()
        if tournament.kind == Tournament.Kind.KNOCKOUT:
            loser = b if winner is a else a
            if loser.status == Entry.Status.IN:
                loser.status = Entry.Status.OUT
                loser.save(update_fields=["status"])
        return True
    host = room_create(
        rules={"format": "match", "length": row.length},
        nickname=cleaning.account_name(a.user),
        user=a.user,
        language=_language_of(a.user),
        days_per_move=tournament.days_per_move,
        vacation_cap_days=tournament.vacation_cap_days,
        rematch=False,
    )
    room_join(
        room=host.room,
        nickname=cleaning.account_name(b.user),
        user=b.user,
        language=_language_of(b.user),
    )
    row.room = host.room
    row.status = TournamentMatch.Status.PLAYING
    row.save()
    # "Your next match", once to each player (games.mail.send_tournament_match).
    outbox.schedule("games.tasks.tournament_match_email", row.pk)
    return False


def _finish(tournament: Tournament, rows: list[TournamentMatch], entries: dict[int, Entry]) -> None:
    if tournament.status != Tournament.Status.RUNNING:
        return
    if tournament.kind == Tournament.Kind.KNOCKOUT:
        final = max(rows, key=lambda row: row.round)
        champion = entries[final.winner_id] if final.winner_id else None
    else:
        first = [entry for entry in entries.values() if entry.group == 0]
        first.sort(key=lambda entry: entry.seed or 0)
        results = [
            Result(row.player_a_id, row.player_b_id, row.winner_id, row.points_a, row.points_b)
            for row in rows
            if row.group == 0 and row.winner_id and row.player_a_id and row.player_b_id
        ]
        table = standings([entry.pk for entry in first], results)
        champion = entries[table[0].player] if table else None
    tournament.status = Tournament.Status.FINISHED
    tournament.ended_at = clock.now()
    tournament.winner = champion.user if champion else None
    tournament.save(update_fields=["status", "ended_at", "winner"])


def _open_rooms_of(entry: Entry) -> list[int]:
    rows = TournamentMatch.objects.filter(
        tournament_id=entry.tournament_id, status=TournamentMatch.Status.PLAYING
    ).filter(player_a=entry) | TournamentMatch.objects.filter(
        tournament_id=entry.tournament_id, status=TournamentMatch.Status.PLAYING, player_b=entry
    )
    return [room for room in rows.values_list("room_id", flat=True) if room is not None]


def _lock(tournament: Tournament) -> Tournament:
    if not isinstance(tournament, Tournament) or tournament.pk is None:
        raise NotFound("tournament_not_found")
    locked = Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
    if locked is None:
        raise NotFound("tournament_not_found")
    return locked


def _account(user: Someone) -> User:
    if not isinstance(user, User) or user.pk is None:
        raise Forbidden("login_required")
    return user


def _whole(value: object, low: int, high: int) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise BadInput("bad_tournament", f"{value!r} is not {low} to {high}")
    return value


def _language_of(user: User) -> str:
    profile = getattr(user, "profile", None)
    return profile.language if profile is not None else "es"
