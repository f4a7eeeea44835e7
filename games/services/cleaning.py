"""The values a player sends, read and checked once, for the services.

The services call these on every value before they touch a row; the forms and
the JSON API check only that a value has the right type and take their limits
(NICKNAME_MAX, EMAIL_MAX) from here, so each rule is written in one place.
Each refusal is a BadInput whose code names the field.
"""

import functools
import zoneinfo

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db.models import CharField

from games.engine import MatchRules, Play
from games.lib import deadlines
from games.lib.errors import BadInput
from games.models import MESSAGE_MAX, Seat


def _max_length(field: str) -> int:
    column = Seat._meta.get_field(field)
    assert isinstance(column, CharField) and column.max_length is not None
    return column.max_length


NICKNAME_MAX = _max_length("nickname")
EMAIL_MAX = _max_length("email")  # Django's validator would allow 320
# The ratings a challenge's range may name (FIBS ratings live well inside).
RATING_LOWEST, RATING_HIGHEST = 0, 3000


def clean_rules(rules: object) -> MatchRules:
    if isinstance(rules, MatchRules):
        return rules
    if not isinstance(rules, dict):
        raise BadInput("bad_rules", "rules are a JSON object")
    try:
        return MatchRules.from_json(rules)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise BadInput("bad_rules", str(exc)) from None


def clean_days_per_move(days: object) -> int:
    """One of the clock's choices of days per move; nothing chosen: the seeds' two days."""
    if days is None or days == "":
        return deadlines.DAYS_PER_MOVE
    if isinstance(days, str) and days.strip().isdigit():
        days = int(days)
    if not isinstance(days, int) or isinstance(days, bool):
        raise BadInput("bad_days_per_move")
    if days not in deadlines.DAYS_PER_MOVE_CHOICES:
        raise BadInput("bad_days_per_move")
    return days


def storable_text(text: str) -> bool:
    """False for text no column can hold: a NUL byte (PostgreSQL refuses it) or a
    lone surrogate such as JSON's "\\ud800" (it has no UTF-8 form)."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def clean_nickname(nickname: object) -> str:
    if not isinstance(nickname, str) or not storable_text(nickname):
        raise BadInput("bad_nickname")
    nickname = " ".join(nickname.split())
    if not 1 <= len(nickname) <= NICKNAME_MAX:
        raise BadInput("bad_nickname")
    return nickname


def clean_email(email: object, consent: object) -> tuple[str, bool]:
    if email in (None, ""):
        return "", False
    if not isinstance(email, str) or not storable_text(email):
        raise BadInput("bad_email")
    email = email.strip()
    if len(email) > EMAIL_MAX:  # Django's validator allows 320; the column holds 254
        raise BadInput("bad_email")
    try:
        validate_email(email)
    except ValidationError:
        raise BadInput("bad_email") from None
    return email, bool(consent)


TIME_ZONE_MAX = 64


@functools.cache
def _known_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def clean_time_zone(name: object) -> str:
    """The browser's IANA time zone name if this machine knows it, else "" (UTC).

    Only used to write deadlines in emails: an unknown name is dropped, not refused.
    """
    if not isinstance(name, str) or len(name) > TIME_ZONE_MAX:
        return ""
    name = name.strip()
    return name if name in _known_zones() else ""


def int_from_text(text: str) -> int | None:
    """A count typed in a form or a URL ("12"), or None when it is not one.

    Only ASCII digits, at most nine: str.isdigit() also says yes to "²", which
    int() refuses, and int() refuses more than 4300 digits (both were a 500).
    """
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else None


def clean_version(version: object) -> int:
    if isinstance(version, bool):
        raise BadInput("bad_version")
    if isinstance(version, str) and int_from_text(version) is not None:
        version = int_from_text(version)
    if not isinstance(version, int) or version < 0:
        raise BadInput("bad_version")
    return version


def clean_play(play: object) -> tuple[tuple[int, int], ...]:
    """A list of at most four [src, dst] pairs of point numbers 0..25."""
    if not isinstance(play, list | tuple) or len(play) > 4:
        raise BadInput("bad_play")
    steps = []
    for step in play:
        if not isinstance(step, list | tuple) or len(step) != 2:
            raise BadInput("bad_play")
        if not all(isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= 25 for p in step):
            raise BadInput("bad_play")
        steps.append((step[0], step[1]))
    return tuple(steps)


def account_name(user: User) -> str:
    """The name an account plays under: the profile's "Nombre que ven los demás", else
    the username (a user without a profile has no display name yet)."""
    profile = getattr(user, "profile", None)
    name = (profile.display_name if profile else "") or user.get_username()
    return " ".join(name.split())[:NICKNAME_MAX]


def clean_message(text: object) -> str:
    """A word to the opponent: 1 to MESSAGE_MAX characters once trimmed, storable."""
    if not isinstance(text, str) or not storable_text(text):
        raise BadInput("bad_message")
    text = text.strip()
    if not 1 <= len(text) <= MESSAGE_MAX:
        raise BadInput("bad_message")
    return text


def clean_rating_range(low: object, high: object) -> tuple[int | None, int | None]:
    """A challenge's optional rating range: whole numbers in the scale, the lower first."""
    bounds: list[int | None] = []
    for value in (low, high):
        if value is None or value == "":
            bounds.append(None)
            continue
        number = int_from_text(value) if isinstance(value, str) else value
        if not isinstance(number, int) or isinstance(number, bool):
            raise BadInput("bad_rating_range")
        if not RATING_LOWEST <= number <= RATING_HIGHEST:
            raise BadInput("bad_rating_range")
        bounds.append(number)
    lowest, highest = bounds
    if lowest is not None and highest is not None and lowest > highest:
        raise BadInput("bad_rating_range")
    return lowest, highest


def clean_answer(answer: object) -> str | None:
    """A conditional cube answer: take, drop, beaver, or None to clear it."""
    if answer is None or answer == "":
        return None
    if not isinstance(answer, str) or answer not in ("take", "drop", "beaver"):
        raise BadInput("bad_answer")
    return answer


def clean_play_table(plays: object) -> list[tuple[tuple[int, int], str | Play]]:
    """A written play table as sent: at most 21 {dice: [a, b], play} entries.

    ``play`` is a list of steps (checked like a play) or a text in notation,
    read against the position once the match is locked.
    """
    if plays is None:
        return []
    if not isinstance(plays, list) or len(plays) > 21:
        raise BadInput("bad_table")
    table: list[tuple[tuple[int, int], str | Play]] = []
    for entry in plays:
        if not isinstance(entry, dict) or set(entry) - {"dice", "play"}:
            raise BadInput("bad_table")
        dice = entry.get("dice")
        if (
            not isinstance(dice, list | tuple)
            or len(dice) != 2
            or not all(type(d) is int and 1 <= d <= 6 for d in dice)
        ):
            raise BadInput("bad_table")
        play = entry.get("play")
        if isinstance(play, str):
            if len(play) > 64:
                raise BadInput("bad_notation")
            table.append(((dice[0], dice[1]), play))
        else:
            table.append(((dice[0], dice[1]), clean_play(play)))
    return table
