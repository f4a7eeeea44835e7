"""A seat's action as a request: read its body, call its service.

The table of a seat's actions (ACTION_SPECS), shared by the JSON API and the HTML forms.

Each action, by the name used in URLs and forms, with the service that
performs it and how it reads its arguments from a request body; perform()
parses and calls. Both ways of playing go through here, so they obey exactly
the same checks.

The parsers check only JSON types; what the values may be (a version not
below 0, a play of at most four steps of points 0..25, a resign value 1..3)
is the services' check, made once there (games.services.cleaning) for every
caller, and the rules are the engine's.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeGuard

from games import services
from games.engine import ActionKind
from games.lib.errors import BadInput, RequestError
from games.lib.site_actions import SiteAction
from games.models import Match, Seat

# A request's JSON body (an object), and the keyword arguments read from it.
Body = dict[str, object]
Arguments = dict[str, object]


def is_int(value: object) -> TypeGuard[int]:
    # JSON true/false are ints to Python; they are not numbers to us.
    return isinstance(value, int) and not isinstance(value, bool)


def parse_version(body: Body) -> int:
    version = body.get("version")
    if not is_int(version):
        raise BadInput("bad_version", f"version={version!r}")
    return version


def parse_play(body: Body) -> Arguments:
    # The steps as sent: games.services.cleaning.clean_play reads them.
    return {"play": body.get("play")}


def parse_resign_value(body: Body) -> Arguments:
    value = body.get("value")
    if not is_int(value):
        raise BadInput("bad_value", f"value={value!r}")
    return {"value": value}


def parse_answer(body: Body) -> Arguments:
    answer = body.get("answer")
    if answer is not None and not isinstance(answer, str):
        raise BadInput("bad_answer", f"answer={answer!r}")
    return {"answer": answer}


def parse_plays(body: Body) -> Arguments:
    plays = body.get("plays")
    if not isinstance(plays, list):
        raise BadInput("bad_table", "plays must be a list of {dice, play}")
    return {"plays": plays}


def no_arguments(body: Body) -> Arguments:
    return {}


@dataclass(frozen=True)
class ActionSpec:
    service: Callable[..., Match]  # the function of games.services that performs it
    parse: Callable[[Body], Arguments] = no_arguments
    versioned: bool = True  # carries the version the player saw (docs/API.md)


# How an action reads its arguments from the body; the others take none.
PARSERS: dict[str, Callable[[Body], Arguments]] = {
    ActionKind.PLAY: parse_play,
    ActionKind.RESIGN_OFFER: parse_resign_value,
    ActionKind.CONDITIONAL_ANSWER: parse_answer,
    ActionKind.CONDITIONAL_PLAYS: parse_plays,
}

# Every game action of games.services.ACTION_SERVICES (the one list of them), and the rematch.
ACTION_SPECS: dict[str, ActionSpec] = {
    **{
        name: ActionSpec(service, PARSERS.get(name, no_arguments))
        for name, service in services.ACTION_SERVICES.items()
    },
    SiteAction.REMATCH_OFFER: ActionSpec(services.rematch_offer, versioned=False),
    SiteAction.REMATCH_ACCEPT: ActionSpec(services.rematch_accept, versioned=False),
}


def perform(action: str, seat: Seat | None, body: Body) -> Match:
    """Parse `body` for `action` and call its service as `seat`.

    The service refuses a missing seat (403), after its own checks of the values.
    """
    spec = ACTION_SPECS.get(action)
    if spec is None:
        raise RequestError("unknown_action", action)
    kwargs = spec.parse(body)
    if spec.versioned:
        kwargs["version"] = parse_version(body)
    message = body.get("message")
    if message is not None and message != "":
        # A word with the turn: the action and the message, both or neither.
        return services.act_with_message(
            seat=seat, text=message, act=lambda: spec.service(seat=seat, **kwargs)
        )
    return spec.service(seat=seat, **kwargs)
