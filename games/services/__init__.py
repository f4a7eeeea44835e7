"""The writers: the only code that changes a room, a game or what is owed.

- rooms: open a room, take its free seat, a browser's seats to an account, seen
- gameplay: the game actions of a seat, one function each, and ACTION_SERVICES,
  the dispatch table from an action's name to its function (the one list of them)
- rematch: offer and accept a rematch
- sweeps: close a game by absence, expire an idle room
- table: the unit of work every action runs in (the locked match and its Turn rows)
- analysis: the writes of the analysis after the game
- outbox: follow-up tasks recorded with the change that owes them; mail retries
- dice: where each game's dice seed comes from
- cleaning: the values a player sends, checked once
- ratings: the FIBS rating of a match that has just ended (called by table)
- vacations: start one, come back, end on a move; the deadlines they move
- challenges: open challenges in the lobby and invitations by name (accept, withdraw, expire)
- talk: a word with each move, and muting an opponent
- push: the browsers an account allowed to be told of its turn
- tournaments: host, join, leave, withdraw; start or cancel; the next match opened once
"""

from games.services import (
    analysis,
    challenges,
    cleaning,
    dice,
    outbox,
    ratings,
    site_tournaments,
    talk,
    tournaments,
    vacations,
)
from games.services.analysis import (
    analyses_catch_up,
    analyses_deepen,
    game_analysis_queue,
    game_analysis_run,
    requeue_stuck,
)
from games.services.challenges import (
    challenge_accept,
    challenge_post,
    challenge_withdraw,
    challenges_expire,
    invitation_decline,
    invitation_send,
    invitation_send_by_name,
)
from games.services.gameplay import (
    ACTION_SERVICES,
    absence_keep_waiting,
    game_act,
    game_beaver,
    game_claim_absence,
    game_conditional_answer,
    game_conditional_greedy,
    game_conditional_plays,
    game_double,
    game_drop,
    game_next,
    game_play,
    game_resign_accept,
    game_resign_decline,
    game_resign_offer,
    game_roll,
    game_take,
    match_resign,
    session_stop,
)
from games.services.push import push_subscribe, push_unsubscribe
from games.services.rematch import rematch_accept, rematch_offer
from games.services.rooms import room_create, room_join, seat_seen, seats_claim_for_user
from games.services.sweeps import absence_close, room_expire
from games.services.talk import act_with_message, message_send, messages_mute
from games.services.tournaments import (
    tournament_create,
    tournament_join,
    tournament_leave,
    tournament_match_ended,
    tournament_start_due,
    tournament_withdraw,
)
from games.services.vacations import vacation_end, vacation_start

__all__ = [
    "ACTION_SERVICES",
    "absence_close",
    "absence_keep_waiting",
    "act_with_message",
    "analyses_catch_up",
    "analyses_deepen",
    "analysis",
    "challenge_accept",
    "challenge_post",
    "challenge_withdraw",
    "challenges",
    "challenges_expire",
    "cleaning",
    "dice",
    "game_act",
    "game_analysis_queue",
    "game_analysis_run",
    "game_beaver",
    "game_claim_absence",
    "game_conditional_answer",
    "game_conditional_greedy",
    "game_conditional_plays",
    "game_double",
    "game_drop",
    "game_next",
    "game_play",
    "game_resign_accept",
    "game_resign_decline",
    "game_resign_offer",
    "game_roll",
    "game_take",
    "invitation_decline",
    "invitation_send",
    "invitation_send_by_name",
    "match_resign",
    "message_send",
    "messages_mute",
    "outbox",
    "push_subscribe",
    "push_unsubscribe",
    "ratings",
    "rematch_accept",
    "rematch_offer",
    "requeue_stuck",
    "room_create",
    "room_expire",
    "room_join",
    "seat_seen",
    "seats_claim_for_user",
    "session_stop",
    "site_tournaments",
    "talk",
    "tournament_create",
    "tournament_join",
    "tournament_leave",
    "tournament_match_ended",
    "tournament_start_due",
    "tournament_withdraw",
    "tournaments",
    "vacation_end",
    "vacation_start",
    "vacations",
]
