"""Forms of the site: they parse what a person typed, nothing more.

Whether an action is allowed is the services' and the engine's business; a
form only turns text into the typed values a service expects. The board's
buttons are read into the JSON API's body (form_body), so both ways of
playing go through one parser (games.web.action_requests.perform).
"""

from typing import Any

from django import forms
from django.contrib.auth.models import AnonymousUser, User
from django.http import HttpRequest, QueryDict
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from games.bots import CHARACTERS
from games.engine import EngineError, Format, InvalidInput, MatchRules, MatchState, parse_play
from games.lib import deadlines
from games.lib.errors import RequestError, from_engine
from games.models import Room, Seat
from games.selectors import current_match
from games.services.cleaning import (
    EMAIL_MAX,
    NICKNAME_MAX,
    RATING_HIGHEST,
    RATING_LOWEST,
    account_name,
    int_from_text,
)
from games.services.rooms import PlayerDetails
from games.web.action_requests import Body

# Short matches first (the common ones), then the long ones up to 25 points.
MATCH_LENGTHS = (1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25)
MATCH_LENGTH_INITIAL = 5
# What the home page offers; the engine allows more (games.engine.MAX_AUTO_DOUBLES).
AUTO_DOUBLES_CHOICES = (1, 2, 3)
PERSON = "person"  # the opponent choice for "Jugar con alguien"


# The formats a host may choose, with what each means.
FORMAT_CHOICES = [
    (Format.SINGLE.value, _("Partida simple: una partida, sin cubo")),
    (Format.MATCH.value, _("Match a N puntos, con cubo y regla de Crawford")),
    (Format.SESSION.value, _("Sesión libre: partidas con cubo hasta que alguien pare")),
]


# --- the fields several forms ask for (home, lobby, profile, tournament), each
# declared once here with its one label; a form names them in its own order ---


def format_field(*, radio: bool = False) -> forms.ChoiceField:
    """The format; a single game unless chosen. Radio buttons where each is explained."""
    return forms.ChoiceField(
        label=_("Formato"),
        choices=FORMAT_CHOICES,
        initial=Format.SINGLE.value,
        widget=forms.RadioSelect if radio else forms.Select,
    )


def match_length_choices() -> list[tuple[int, str]]:
    return [(n, str(n)) for n in MATCH_LENGTHS]


def match_length_field(*, required: bool = False) -> forms.TypedChoiceField:
    """The points a match is played to. Optional where the format may not be a match."""
    return forms.TypedChoiceField(
        label=_("Puntos del match"),
        choices=match_length_choices(),
        coerce=int,
        initial=MATCH_LENGTH_INITIAL,
        required=required,
    )


def days_per_move_field(*, required: bool = False) -> forms.TypedChoiceField:
    """The clock's days per move. Optional where none means the seeds' two days."""
    return forms.TypedChoiceField(
        label=_("Días por jugada"),
        choices=[(days, str(days)) for days in deadlines.DAYS_PER_MOVE_CHOICES],
        coerce=int,
        initial=deadlines.DAYS_PER_MOVE,
        required=required,
    )


def rating_band_fields() -> tuple[forms.IntegerField, forms.IntegerField]:
    """The lowest and the highest rating admitted, both optional, in the scale the
    services accept (clean_rating_range). Declare them as
    ``rating_min, rating_max = rating_band_fields()``."""
    return (
        forms.IntegerField(
            label=_("Puntuación mínima (opcional)"),
            min_value=RATING_LOWEST,
            max_value=RATING_HIGHEST,
            required=False,
        ),
        forms.IntegerField(
            label=_("Puntuación máxima (opcional)"),
            min_value=RATING_LOWEST,
            max_value=RATING_HIGHEST,
            required=False,
        ),
    )


class PlayerFields(forms.Form):
    """Who sits down: a nickname and, optionally, an email for "Es tu turno"."""

    nickname = forms.CharField(
        label=_("Tu apodo"),
        max_length=NICKNAME_MAX,
        required=False,
        help_text=_("Es el nombre que ve tu rival."),
    )
    email = forms.EmailField(
        label=_("Tu correo (opcional)"),
        max_length=EMAIL_MAX,
        required=False,
        help_text=_("Solo para avisarte cuando te toca. Nadie más lo ve."),
    )
    email_consent = forms.BooleanField(
        label=_("Sí, quiero recibir un correo cuando me toque jugar."),
        required=False,
    )
    # Filled by static/js/zone.js: the deadlines in the emails use it.
    time_zone = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

    def __init__(self, *args: Any, user: User | AnonymousUser | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user if user is not None and user.is_authenticated else None
        self.default_nickname = account_name(self.user) if self.user else ""
        if self.user is None:
            self.fields["nickname"].required = True
            # Say what to do, not Django's "Este campo es obligatorio."
            self.fields["nickname"].error_messages["required"] = _("Elige un apodo.")

    def clean_nickname(self) -> str:
        nickname = " ".join(self.cleaned_data["nickname"].split())
        if not nickname and self.user is not None:
            nickname = self.default_nickname
        if not nickname:
            raise forms.ValidationError(_("Elige un apodo."))
        return nickname

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        assert cleaned is not None  # Form.clean returns cleaned_data
        if cleaned.get("email_consent") and not cleaned.get("email"):
            self.add_error("email", _("Para avisarte por correo necesitamos tu dirección."))
        return cleaned

    def player(self) -> PlayerDetails:
        """Who sits down, as the API reads it too; the account is `self.user`."""
        data = self.cleaned_data
        return {
            "nickname": data["nickname"],
            "email": data["email"],
            "email_consent": bool(data["email"]) and data["email_consent"],
            "time_zone": data.get("time_zone") or "",
        }


def opponent_choices() -> list[tuple[str, str | Promise]]:
    """A person by link, or one of the computer players, weakest to strongest."""
    return [(PERSON, _("Alguien, por link"))] + [
        (key, character.name) for key, character in CHARACTERS.items()
    ]


class MatchNeedsLength(forms.Form):
    """A form with `format` and `length`: a match is refused without its length
    (never a length chosen for the player), on every form that offers one."""

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        if cleaned.get("format") == Format.MATCH and not cleaned.get("length"):
            self.add_error("length", _("Elige a cuántos puntos se juega el match."))
        return cleaned


class NewRoomForm(MatchNeedsLength, PlayerFields):
    """Home page: "Jugar con alguien" or "Jugar contra la computadora", and the format."""

    opponent = forms.ChoiceField(
        label=_("Rival"),
        choices=opponent_choices,
        initial=PERSON,
        required=False,  # no choice means a person by link
        widget=forms.RadioSelect,
    )
    format = format_field(radio=True)
    length = match_length_field()
    auto_doubles = forms.BooleanField(label=_("Dobles automáticos"), required=False)
    max_auto_doubles = forms.TypedChoiceField(
        label=_("Dobles automáticos por partida, como máximo"),
        choices=[(n, str(n)) for n in AUTO_DOUBLES_CHOICES],
        coerce=int,
        initial=1,
        required=False,
    )
    beavers = forms.BooleanField(label=_("Castores"), required=False)
    jacoby = forms.BooleanField(label=_("Regla Jacoby"), required=False)
    # Ticked to opt out, so a form sent without it is rated, like the API's default.
    unrated = forms.BooleanField(label=_("Sin puntuar: no cambia la puntuación"), required=False)
    days_per_move = days_per_move_field()

    field_order = [
        "opponent",
        "format",
        "length",
        "auto_doubles",
        "max_auto_doubles",
        "beavers",
        "jacoby",
        "unrated",
        "days_per_move",
        "nickname",
        "email",
        "email_consent",
    ]

    def rated(self) -> bool:
        return not self.cleaned_data.get("unrated")

    def chosen_days(self) -> int | None:
        """The clock the host chose (None: the seeds' two days)."""
        days: int | None = self.cleaned_data.get("days_per_move") or None
        return days

    def bot(self) -> str | None:
        """The computer player's key, or None to play a person by link."""
        opponent: str = self.cleaned_data["opponent"]
        return None if opponent in ("", PERSON) else opponent

    def match_rules(self) -> MatchRules:
        """The rules the host chose; options that do not belong to the format are dropped."""
        data = self.cleaned_data
        chosen = Format(data["format"])
        if chosen == Format.MATCH:
            return MatchRules(format=chosen, length=data["length"])
        if chosen == Format.SESSION:
            return MatchRules(
                format=chosen,
                auto_doubles=data["auto_doubles"],
                max_auto_doubles=data["max_auto_doubles"] or 1,
                beavers=data["beavers"],
                jacoby=data["jacoby"],
            )
        return MatchRules(format=chosen)


class JoinForm(PlayerFields):
    """The invitation page: take the free seat."""


# --- the board's forms, read into the JSON API's body shape (games.web.action_requests.perform) ---


def _number_or_text(value: str | None) -> int | str:
    value = (value or "").strip()
    number = int_from_text(value)
    return value if number is None else number


def form_body(request: HttpRequest, room: Room, seat: Seat | None, action: str) -> Body:
    """Read a board form into the body the API takes, so both share one parser.

    A typed play is read by the engine's notation parser against the dice on
    the table; a chosen one comes as "24-18 13-10".
    """
    post = request.POST
    body: Body = {"version": _number_or_text(post.get("version"))}
    if post.get("message", "").strip():
        body["message"] = post.get("message")  # a word with the turn (games.services.talk)
    if "value" in post:
        body["value"] = _number_or_text(post.get("value"))
    if action == "play":
        choice, typed = post.get("choice", "").strip(), post.get("typed", "").strip()
        if typed:
            body["play"] = _typed_play(room, seat, typed)
        elif choice:
            body["play"] = [
                [_number_or_text(point) for point in step.split("-")] for step in choice.split()
            ]
        else:
            body["play"] = None
    if action == "cond_answer":
        # "" (ask me) clears the answer; no choice at all is refused (bad_answer).
        body["answer"] = post["answer"] if "answer" in post else False
    if action == "cond_plays":
        body["plays"] = _written_plays(room, seat, post)
    return body


def _written_plays(room: Room, seat: Seat | None, post: QueryDict) -> list[object]:
    """The whole table to write: the plays already written with this roll's
    changed ("roll", the play typed in "play", empty to remove it), or none
    ("clear"). The service reads the typed play against the position."""
    if post.get("clear"):
        return []
    roll = [_number_or_text(die) for die in post.get("roll", "").split("-")]
    text = post.get("play", "").strip()
    entry = {"dice": roll, "play": text}
    match = current_match(room)
    if seat is None or match is None or not all(isinstance(die, int) for die in roll):
        return [entry]  # the service refuses it with the right status and sentence
    table = MatchState.from_json(match.state).play_tables[match.side_of(seat)] or ()
    kept: list[object] = [
        {"dice": list(dice), "play": [list(step) for step in play]}
        for dice, play in table
        if sorted(dice) != sorted(roll)
    ]
    return kept + [entry] if text else kept


def _typed_play(room: Room, seat: Seat | None, text: str) -> list[list[int]] | None:
    match = current_match(room)
    if seat is None or match is None:
        return None  # the service refuses with the right status
    state = MatchState.from_json(match.state)
    if state.dice is None:
        return []
    try:
        play = parse_play(state.position_for(match.side_of(seat)), state.dice, text)
    except InvalidInput as error:  # notation it cannot read: the API's own sentence
        raise RequestError(error.code, error.reason) from None
    except EngineError as error:
        raise from_engine(error) from None
    return [list(step) for step in play]
