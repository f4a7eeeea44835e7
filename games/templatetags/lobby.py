"""Template tags of the lobby: the challenge form a public profile's button carries."""

from django import template
from django.contrib.auth.models import User

from games.web.lobby import ChallengeForm

register = template.Library()


@register.simple_tag
def challenge_form(player: User) -> ChallengeForm:
    """An unbound ChallengeForm whose field ids name the player (several on one page)."""
    return ChallengeForm(auto_id=f"challenge-{player.pk}-%s")
