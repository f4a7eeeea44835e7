"""Template tags of the analysis after the game (the profile's average PR).

A tag rather than a line in accounts' view, so accounts needs no import of games.
"""

from django import template

from games.selectors import review

register = template.Library()


@register.simple_tag
def average_pr(user) -> dict:
    """{"pr": mean PR or None, "games": how many} over the user's last 50 analysed games."""
    pr, games = review.average_pr(user)
    return {"pr": pr, "games": games, "last": review.RECENT_GAMES}
