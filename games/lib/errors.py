"""Errors raised by games.services and the request layer, and their sentences.

Each error carries a machine `code` (stable, for the JSON API and tests), an
HTTP-like `status` and a human `message` in the request's language. Views turn
them into responses; nothing else needs to know about HTTP. Every code a person
may read, from a service, the engine, the API or Django's error handlers, has
its sentence in MESSAGES, and `public_message` is the one way to read it.
"""

from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _

from games.engine import EngineError, InvalidInput

# Every code a service can raise, with the sentence a person reads.
# Engine codes (InvalidInput / IllegalMove) are listed too so the site can
# translate them (a test reads the engine's source for them); an unknown code
# falls back to its error class's general sentence.
MESSAGES = {
    # 400
    "bad_input": _("La petición no se entiende."),
    "bad_version": _("Falta la versión de la partida o no es un número."),
    "bad_play": _("La jugada no tiene la forma esperada: una lista de pasos [origen, destino]."),
    "bad_value": _("El valor de la rendición debe ser 1, 2 o 3."),
    "bad_nickname": _("Elige un apodo de 1 a 30 caracteres."),
    "bad_email": _("La dirección de correo no parece válida."),
    "bad_rules": _("Ese formato de partida no existe."),
    "bad_bot": _("Ese jugador de la computadora no existe."),
    "bad_vacation_days": _("Elige de 1 a 30 días de vacaciones."),
    "bad_rated": _("Di si la partida puntúa con sí o no."),
    "bad_rating_range": _("El rango de puntuación va de 0 a 3000, el número menor primero."),
    "bad_message": _("Escribe un mensaje de 1 a 200 caracteres."),
    "invite_yourself": _("No puedes invitarte a ti mismo."),
    "bad_days_per_move": _("Elige 1, 2, 3 o 5 días por jugada."),
    "bad_tournament": _(
        "Ese torneo no se puede crear así: revisa el tipo, las plazas y los puntos."
    ),
    "bad_tournament_name": _("Ponle al torneo un nombre de 1 a 60 caracteres."),
    # 403
    "not_seat_holder": _("Ese asiento no es tuyo: solo puedes mirar."),
    "login_required": _("Entra con tu cuenta para hacer eso."),
    "not_invitee": _("Esta invitación es para otra persona."),
    "not_author": _("Solo quien publicó el desafío puede retirarlo."),
    "rating_out_of_range": _("Tu puntuación no entra en el rango que pide este desafío."),
    "tournament_rating": _("Tu puntuación no entra en el rango de este torneo."),
    # 404
    "not_found": _("No encontramos esa mesa."),
    "no_match": _("En esta mesa todavía no se juega."),
    "challenge_not_found": _("No encontramos ese desafío."),
    "no_such_player": _("No encontramos a ese jugador."),
    "tournament_not_found": _("No encontramos ese torneo."),
    # 409
    "stale_version": _("La partida cambió mientras tanto. Recarga para ver la última jugada."),
    "not_your_turn": _("Ahora no te toca."),
    "room_full": _("Los dos asientos de esta mesa ya están ocupados."),
    "game_over": _("Esta partida ya terminó."),
    "match_over": _("Este encuentro ya terminó."),
    "match_not_over": _("La revancha se ofrece cuando el encuentro ha terminado."),
    "already_seated": _("Ya estás sentado en esta mesa."),
    "game_not_over": _("Solo se analiza una partida terminada."),
    "on_vacation": _("Ya estás de vacaciones."),
    "not_on_vacation": _("No estás de vacaciones."),
    "no_vacation_left": _("No te quedan tantos días de vacaciones este año."),
    "bot_reads_nothing": _("La computadora no lee mensajes."),
    "own_challenge": _("Es tu propio desafío: espera a que lo acepte otra persona."),
    "challenge_taken": _("Otra persona aceptó este desafío antes que tú."),
    "tournament_full": _("Este torneo ya está completo."),
    "tournament_not_open": _("Este torneo ya no admite jugadores."),
    "tournament_not_running": _("Este torneo no está en juego."),
    "already_entered": _("Ya estás apuntado a este torneo."),
    "not_entered": _("No estás apuntado a este torneo."),
    "already_withdrawn": _("Ya te retiraste de este torneo."),
    "too_many_tournaments": _("Ya organizas dos torneos: espera a que termine uno."),
    "tournament_room": _("En un torneo no hay revancha: el siguiente encuentro llega solo."),
    "challenge_withdrawn": _("Este desafío ya no está: lo retiraron."),
    "challenge_declined": _("Esta invitación ya fue rechazada."),
    "challenge_expired": _("Este desafío caducó: pasaron siete días sin que nadie lo aceptara."),
    "too_many_challenges": _(
        "Ya tienes el máximo de desafíos abiertos. Retira uno para publicar otro."
    ),
    # 422: rules
    "wrong_phase": _("Eso no se puede hacer en este momento de la partida."),
    "cannot_double": _("Ahora no puedes doblar."),
    "crawford": _("En la partida Crawford no se usa el cubo."),
    "cube_max": _("El cubo ya está en 64."),
    "nothing_offered": _("No hay nada que aceptar ni rechazar."),
    "beaver_not_allowed": _("En esta mesa no se juega con castores."),
    "illegal_play": _("Esa jugada no es legal con estos dados."),
    "incomplete_play": _("Tienes que usar todos los dados que se puedan jugar."),
    "wrong_dice": _("Esa jugada no corresponde a los dados."),
    "no_checker": _("No tienes ficha en esa punta."),
    "point_closed": _("Esa punta está cerrada."),
    "bar_first": _("Primero tienes que entrar las fichas de la barra."),
    "bear_off_not_home": _("Solo puedes sacar fichas con las quince en casa."),
    "bad_step": _("Cada paso va de una punta a otra: [origen, destino]."),
    "too_far": _("Un paso avanza lo que marca un dado, de 1 a 6 puntas."),
    "wrong_direction": _("Las fichas avanzan hacia tu punta 1, nunca hacia atrás."),
    "bad_notation": _("No entendimos esa jugada. Escríbela como 24/18 13/10."),
    "too_early": _("Tu rival todavía está dentro de su plazo para jugar."),
    "not_waiting": _("No estás esperando a tu rival."),
    "not_session": _("Solo una sesión libre se puede parar entre partidas."),
    "no_cube": _("En la partida simple no se juega con el cubo."),
    "already_rolled": _("Ya tiraste los dados: ahora toca mover."),
    "unknown_action": _("Esa acción no existe."),
    "bad_action": _("A esa acción le falta algo o le sobra algo."),
    "bad_subscription": _("El navegador mandó una suscripción a avisos que no entendemos."),
    "push_off": _("Este sitio no manda avisos al teléfono."),
    "not_signed_in": _("Entra con tu cuenta para recibir avisos en este dispositivo."),
    "bad_answer": _("La respuesta al cubo es aceptar, rechazar o castor."),
    "bad_table": _("Cada tirada se escribe una sola vez, con su jugada."),
    "no_double_ahead": _(
        "Tu rival no puede doblar en su próximo turno: no hay nada que dejar escrito."
    ),
    "opponent_can_change": _(
        "Tu rival todavía puede cambiar tu próxima tirada: juega cuando te toque."
    ),
    "not_bearing_off": _("Para sacar fichas así tienes que tener las quince en casa."),
    # The HTTP layer itself: the API (RequestError) and games.web.http_errors.
    "bad_json": _("El cuerpo de la petición debe ser un objeto JSON."),
    "bad_request": _("La petición no se entiende."),
    "too_large": _("La petición es demasiado grande."),
    "method_not_allowed": _("Ese método no está permitido aquí."),
    "csrf_failed": _("La página caducó. Recárgala e inténtalo de nuevo."),
    "forbidden": _("No puedes hacer eso aquí."),
    "too_many_requests": _("Vas demasiado rápido. Espera un momento y vuelve a intentarlo."),
    "server_error": _("Algo falló de nuestro lado. Inténtalo de nuevo en un momento."),
    # 503: the database away (games.web.http_errors); never "your move failed".
    "unavailable": _(
        "No podemos llegar a las partidas ahora mismo. Lo ya jugado está a salvo; si "
        "acabas de enviar una jugada, el tablero mostrará en unos segundos si se guardó."
    ),
    "saved_unavailable": _(
        "Tu jugada se guardó, pero ahora no podemos mostrarte la partida. "
        "El tablero la mostrará en unos segundos."
    ),
}

# When a code has no sentence of its own (a new engine code, say), a person
# still reads one in their language rather than the English developer reason.
FALLBACK_BY_STATUS = {
    400: "bad_input",
    403: "not_seat_holder",
    404: "not_found",
    409: "wrong_phase",
    422: "illegal_play",
}


def public_message(error: "ServiceError") -> str:
    """The sentence a person reads for `error` (a ServiceError), always translated."""
    if error.code in MESSAGES:
        return str(MESSAGES[error.code])
    return str(MESSAGES[FALLBACK_BY_STATUS.get(error.status, "bad_input")])


class ServiceError(Exception):
    status = 400
    default_code = "bad_input"

    def __init__(self, code: str | None = None, reason: str = "") -> None:
        self.code = code or self.default_code
        self.reason = reason  # plain English detail for logs and developers
        super().__init__(f"{self.code}: {reason}" if reason else self.code)

    @property
    def message(self) -> str:
        # `reason` is English for developers; a person always reads a translated
        # sentence, in the language active when it is read (lazy).
        return lazy(public_message, str)(self)


class BadInput(ServiceError):
    status = 400
    default_code = "bad_input"


class NotSeatHolder(ServiceError):
    status = 403
    default_code = "not_seat_holder"


class NotFound(ServiceError):
    status = 404
    default_code = "not_found"


class Forbidden(ServiceError):
    """Not this person's to do: someone else's challenge, an invitation to another."""

    status = 403
    default_code = "forbidden"


class Conflict(ServiceError):
    """Stale version, out of turn, or the game is already over."""

    status = 409
    default_code = "stale_version"


class IllegalMoveError(ServiceError):
    """The rules refuse the action (the engine said no)."""

    status = 422
    default_code = "illegal_play"


class RequestError(BadInput):
    """A request the site cannot read or answer (not JSON, too large, an unknown action,
    a failure games.web.http_errors answers); its sentence is in MESSAGES like any other."""

    def __init__(self, code: str, reason: str = "", status: int = 400) -> None:
        super().__init__(code, reason)
        self.status = status


# Engine refusals that mean "not now / not you" rather than "against the rules".
CONFLICT_CODES = frozenset({"not_your_turn", "game_over", "match_over", "no_double_ahead"})


def from_engine(error: EngineError) -> ServiceError:
    """The service error for an engine refusal: its class decides the status, the code stays.

    Input the engine cannot read is a BadInput (400), a "not now" a Conflict
    (409), anything else the rules refuse an IllegalMoveError (422). A refused
    play carries the move rules' finer code (bar_first, point_closed...).
    """
    if isinstance(error, InvalidInput):
        return BadInput(error.code, error.reason)
    code = getattr(error, "move_code", None) or error.code
    if code in CONFLICT_CODES:
        return Conflict(code, error.reason)
    return IllegalMoveError(code, error.reason)
