"""The email of an invitation by name: "<author> te desafía" (issue 22).

Sent once per invitation under the SentEmail key "invitation:<id>", like
"your opponent sat down"; nothing when the invitation is no longer open by
the time the worker runs, or when the invitee gets no mail.
"""

from django.conf import settings
from django.urls import reverse

from accounts.recipients import recipient_for_user
from games import lobby
from games.models import Challenge
from games.notifications import _send_once


def send_invitation(*, challenge_id: int) -> int:
    """Tell the invitee who challenges them and to what; 1 when this call sent it."""
    challenge = (
        Challenge.objects.select_related("author__profile", "invitee__profile")
        .filter(pk=challenge_id, status=Challenge.Status.OPEN, invitee__isnull=False)
        .first()
    )
    if challenge is None:
        return 0
    recipient = recipient_for_user(challenge.invitee)
    if recipient is None:
        return 0
    context = {
        "author": lobby.player_name(challenge.author),
        "rules": challenge.rules,
        "expires_at": challenge.expires_at,
        "link": settings.SITE_URL + reverse("games:my_rooms"),
    }
    return _send_once(f"invitation:{challenge.pk}", recipient, "invitation", context)
