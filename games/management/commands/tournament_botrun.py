"""Play a whole knockout by bots, through the services, and check every match opened once.

    python manage.py tournament_botrun --players 64 --length 1 --bot domador

Makes `--players` accounts (named `<prefix>-1`, `<prefix>-2`...), a site
knockout of that size, and has each of them join it: the last join starts
it. Then, until the tournament is over, it plays every open match to its end,
each action chosen by the bot for the player on turn and sent through
games.services.game_act, as the board would send it. Every end of a match
goes through the same services as on the site, which open the next round's
match as soon as both its players are known.

At the end it checks that every match of the bracket was played in exactly
one room (players - 1 rooms, one per match, none left open) and prints the
rounds, the champion and the time taken. The accounts, the rooms and the
tournament stay in the database (use a throwaway one).
"""

import random
import time
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import bots, services
from games.bots.runner import next_action
from games.engine import MatchState
from games.models import Match, Room, Seat, Tournament, TournamentMatch
from games.tournaments import KNOCKOUT_MAX, KNOCKOUT_MIN, knockout


class Command(BaseCommand):
    help = "Play a knockout to the end by bots through the services; check each match opened once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, default=64)
        parser.add_argument("--length", type=int, default=1, help="points per match")
        parser.add_argument(
            "--bot", default="random", help="random (fast), or one of the site's bots"
        )
        parser.add_argument("--seed", type=int, default=0, help="seed of the random bot")
        parser.add_argument("--prefix", default="botrun", help="the accounts' names")

    def handle(self, *args: Any, **options: Any) -> None:
        players, length = options["players"], options["length"]
        if not KNOCKOUT_MIN <= players <= KNOCKOUT_MAX:
            raise CommandError(f"--players must be {KNOCKOUT_MIN} to {KNOCKOUT_MAX}")
        rng = random.Random(options["seed"])
        name = options["bot"].lower()
        bot = bots.RandomPlayer(rng) if name == "random" else bots.get_bot(name)
        started = time.monotonic()
        rooms_before = Room.objects.count()
        users = [self._account(f"{options['prefix']}-{n}") for n in range(1, players + 1)]
        tournament = services.tournament_create(
            host=None,
            name=f"Bots {players} a {length}",
            kind=Tournament.Kind.KNOCKOUT,
            capacity=players,
            lengths=[length],
        )
        for user in users:
            services.tournament_join(tournament=tournament, user=user)
        actions = 0
        while True:
            tournament.refresh_from_db()
            if tournament.status != Tournament.Status.RUNNING:
                break
            playing = list(
                TournamentMatch.objects.filter(
                    tournament=tournament, status=TournamentMatch.Status.PLAYING
                ).order_by("round", "index")
            )
            if not playing:
                raise CommandError("the tournament runs but no match is open")
            for row in playing:
                assert row.room_id is not None
                actions += self._play_out(row.room_id, bot)
            done = TournamentMatch.objects.filter(tournament=tournament, status="finished")
            self.stdout.write(f"{done.count()} of {players - 1} matches played")
        rows = list(TournamentMatch.objects.filter(tournament=tournament))
        rooms = [row.room_id for row in rows]
        opened_once = (
            len(rows) == players - 1 == len(set(rooms)) == Room.objects.count() - rooms_before
            and None not in rooms
            and all(row.status == TournamentMatch.Status.FINISHED for row in rows)
            and Match.objects.filter(room_id__in=rooms).count() == players - 1
        )
        bracket = knockout(players)
        per_round = {
            r: sum(1 for row in rows if row.round == r) for r in range(1, bracket.rounds + 1)
        }
        winner = tournament.winner.get_username() if tournament.winner else None
        self.stdout.write(
            f"{players} players, {bracket.rounds} rounds, matches per round {per_round}, "
            f"{actions} actions, champion {winner}, "
            f"{time.monotonic() - started:.1f} s"
        )
        if not opened_once:
            raise CommandError("a match did not open exactly once")
        self.stdout.write("every match opened exactly once")

    def _account(self, username: str) -> Any:
        users = get_user_model().objects
        user = users.filter(username=username).first()
        return user or users.create_user(username, f"{username}@example.com", None)

    def _play_out(self, room_id: int, bot: Any) -> int:
        """Play the room's match to its end, one service call per action."""
        seats = {seat.pk: seat for seat in Seat.objects.filter(room_id=room_id)}
        count = 0
        while True:
            match = Match.objects.get(room_id=room_id)
            if match.status == Match.Status.FINISHED:
                return count
            seat = seats[match.turn_seat_id] if match.turn_seat_id else None
            if seat is None:
                raise CommandError(f"room {room_id}: nobody on turn")
            state = MatchState.from_json(match.state)
            action = next_action(bot, state, match.side_of(seat))
            if action is None:
                raise CommandError(f"room {room_id}: the bot has nothing to do in {state.phase}")
            play = [list(step) for step in action.play] if action.play is not None else None
            services.game_act(seat=seat, version=match.version, kind=action.kind, play=play)
            count += 1
