"""Email: the messages, the at-most-once claims they are sent under, the SMTP backend.

- messages: who is told what, and when (your turn, digest, joined, ended, absence,
  an invitation by name)
- claims: the one claim protocol, its release, Resend (an answer lost, sent once
  more) and Uncertain (lost twice)
- smtp: the backend that tells a refusal from a lost answer (ReplyLost)
"""

from games.mail import claims, messages, push, smtp
from games.mail.claims import Busy, Resend, Uncertain, release_claim, stale_claim_after
from games.mail.messages import (
    NotNow,
    board_link,
    send_absence_claimable,
    send_absence_reminders,
    send_answer_played,
    send_daily_digests,
    send_invitation,
    send_match_ended,
    send_opponent_joined,
    send_tournament_cancelled,
    send_tournament_match,
    send_your_turn,
)

__all__ = [
    "Busy",
    "NotNow",
    "Resend",
    "Uncertain",
    "board_link",
    "claims",
    "messages",
    "push",
    "release_claim",
    "send_absence_claimable",
    "send_absence_reminders",
    "send_daily_digests",
    "send_answer_played",
    "send_match_ended",
    "send_invitation",
    "send_tournament_cancelled",
    "send_tournament_match",
    "send_opponent_joined",
    "send_your_turn",
    "smtp",
    "stale_claim_after",
]
