"""The read side: every query the pages, the API, the emails and the sweeps read.

Nothing here writes, and nothing here imports a writer (services, mail,
tasks, web), directly or through another module (tests/test_layers.py).

- board: the room state for the board and the JSON API
- my_rooms: "Mis partidas" and the header's count of waiting games
- due: what each sweep and periodic email looks for, and the sweeps' row lock
- records: replay, the .mat file, the dice checks, the board's step options
- review: the analysis after the game, read
- archive: every match a room played
- history, results: each turn and each game's result in words
- ratings: which matches are rated, the recompute, profiles and the leaderboard
- vacations: a player's pauses, the turn clock with them, who is away
- lobby: open challenges, invitations, the rating a challenge's range reads
- talk: the words between the two players, as each reads them
- tournaments: the lists, a tournament's page, a player's tournaments, the replay
"""

from games.selectors import (
    archive,
    board,
    due,
    history,
    lobby,
    my_rooms,
    ratings,
    records,
    results,
    review,
    talk,
    tournaments,
    vacations,
)
from games.selectors.board import current_match, game_infos, room_state, seat_by_token
from games.selectors.due import (
    absence_claimable_due,
    absent_due,
    digest_page,
    idle_rooms_due,
    reminder_due,
    stuck_bot_turns,
    tournaments_due,
)
from games.selectors.my_rooms import rooms_for_seats, waiting_for_me
from games.selectors.records import (
    game_rolls,
    match_actions,
    match_mat,
    replay_match,
    step_options,
    turn_action,
    verify_game_dice,
)

__all__ = [
    "absence_claimable_due",
    "absent_due",
    "archive",
    "board",
    "current_match",
    "digest_page",
    "due",
    "game_infos",
    "game_rolls",
    "history",
    "idle_rooms_due",
    "lobby",
    "match_actions",
    "match_mat",
    "my_rooms",
    "ratings",
    "records",
    "reminder_due",
    "replay_match",
    "results",
    "review",
    "room_state",
    "rooms_for_seats",
    "seat_by_token",
    "step_options",
    "stuck_bot_turns",
    "tournaments",
    "tournaments_due",
    "talk",
    "turn_action",
    "vacations",
    "verify_game_dice",
    "waiting_for_me",
]
