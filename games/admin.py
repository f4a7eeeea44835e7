"""Admin pages for rooms, seats, matches, games and turns.

Read-mostly: the services are the only writers of game state, so the game
fields are read-only here. Seeds of running games and seat token hashes never
appear (not in lists, not in forms).
"""

from django.contrib import admin
from django.db import models, transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django_stubs_ext import StrOrPromise

from games.mail import claims
from games.models import (
    Challenge,
    FollowUp,
    Game,
    Match,
    Message,
    Mute,
    Room,
    Seat,
    SentEmail,
    Turn,
)
from games.services import outbox


class ServicesWriteMixin:
    """Rows are born in games.services only: no "add" button here."""

    def has_add_permission(self, request: HttpRequest, obj: models.Model | None = None) -> bool:
        return False


class SeatInline(admin.TabularInline[Seat, Room]):
    model = Seat
    fields = ("number", "nickname", "user", "email", "email_consent", "last_seen_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


class MatchInline(admin.TabularInline[Match, Room]):
    model = Match
    fields = ("number", "status", "version", "turn_seat", "turn_started_at", "winner_side")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Room)
class RoomAdmin(ServicesWriteMixin, admin.ModelAdmin[Room]):
    list_display = ("slug", "status", "bot", "created_at", "last_move_at")
    list_filter = ("status", "bot")
    search_fields = ("slug", "seats__nickname", "seats__email")
    readonly_fields = ("slug", "rules", "bot", "created_at", "last_move_at", "ended_at")
    date_hierarchy = "created_at"
    inlines = [SeatInline, MatchInline]


@admin.register(Seat)
class SeatAdmin(ServicesWriteMixin, admin.ModelAdmin[Seat]):
    list_display = ("__str__", "number", "nickname", "user", "email", "notify", "last_seen_at")
    list_filter = ("notify", "email_consent", "language")
    search_fields = ("nickname", "email", "room__slug", "user__username")
    list_select_related = ("room", "user")
    raw_id_fields = ("user",)
    # token_hash is excluded: it is a credential even hashed.
    fields = (
        "room",
        "number",
        "nickname",
        "user",
        "email",
        "email_consent",
        "language",
        "notify",
        "created_at",
        "last_seen_at",
        "turn_notified_at",
        "digest_sent_at",
    )
    readonly_fields = ("room", "number", "created_at", "last_seen_at", "turn_notified_at")


class GameInline(admin.TabularInline[Game, Match]):
    model = Game
    fields = ("number", "status", "commitment", "rolls_drawn", "winner_side", "points")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Match)
class MatchAdmin(ServicesWriteMixin, admin.ModelAdmin[Match]):
    list_display = ("__str__", "status", "version", "turn_seat", "turn_started_at", "winner_side")
    list_filter = ("status",)
    search_fields = ("room__slug",)
    list_select_related = ("room", "turn_seat", "turn_seat__room")
    readonly_fields = [f.name for f in Match._meta.fields]
    inlines = [GameInline]


class TurnInline(admin.TabularInline[Turn, Game]):
    model = Turn
    fields = ("number", "side", "kind", "automatic", "dice", "notation", "cube_value", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Game)
class GameAdmin(ServicesWriteMixin, admin.ModelAdmin[Game]):
    list_display = ("__str__", "status", "commitment", "rolls_drawn", "winner_side", "points")
    list_filter = ("status",)
    search_fields = ("match__room__slug", "commitment")
    list_select_related = ("match", "match__room")
    fields = (
        "match",
        "number",
        "status",
        "commitment",
        "seed_if_revealed",
        "rolls_drawn",
        "turn_count",
        "winner_side",
        "points",
        "result",
        "started_at",
        "ended_at",
    )
    readonly_fields = fields
    inlines = [TurnInline]

    @admin.display(description=_("semilla"))
    def seed_if_revealed(self, game: Game) -> str | Promise:
        # The seed of a running game would let its reader know every future roll.
        return game.revealed_seed or _("(secreta hasta el final de la partida)")


@admin.register(Turn)
class TurnAdmin(ServicesWriteMixin, admin.ModelAdmin[Turn]):
    list_display = ("__str__", "side", "kind", "automatic", "dice", "notation", "created_at")
    list_filter = ("kind", "automatic")
    search_fields = ("game__match__room__slug",)
    list_select_related = ("game", "game__match", "game__match__room")
    readonly_fields = [f.name for f in Turn._meta.fields]

    def has_delete_permission(self, request: HttpRequest, obj: Turn | None = None) -> bool:
        return False


class DeadLetterFilter(admin.SimpleListFilter):
    title = _("estado")
    parameter_name = "estado"

    def lookups(
        self, request: HttpRequest, model_admin: admin.ModelAdmin[FollowUp]
    ) -> list[tuple[str, StrOrPromise]]:
        return [
            ("dead", _("sin enviar (agotó los intentos o sin respuesta del servidor)")),
            ("waiting", _("esperando su momento")),
            ("published", _("publicada")),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[FollowUp]) -> QuerySet[FollowUp]:
        if self.value() == "dead":
            return queryset.filter(failed_at__isnull=False)
        if self.value() == "waiting":
            return queryset.filter(failed_at__isnull=True, published_at__isnull=True)
        if self.value() == "published":
            return queryset.filter(published_at__isnull=False)
        return queryset


@admin.register(FollowUp)
class FollowUpAdmin(ServicesWriteMixin, admin.ModelAdmin[FollowUp]):
    """The outbox (games.services.outbox): what is owed, what waits to retry, the dead letters."""

    list_display = (
        "__str__",
        "due_at",
        "published_at",
        "done_at",
        "redrives",
        "failed_at",
        "error",
    )
    list_filter = (DeadLetterFilter,)
    search_fields = ("task", "error")
    readonly_fields = [f.name for f in FollowUp._meta.fields]
    actions = ["send_again"]

    @admin.action(description=_("Volver a enviar"))
    def send_again(self, request: HttpRequest, queryset: QuerySet[FollowUp]) -> None:
        # An "uncertain" mail keeps its claim; whoever presses this checked it
        # did not arrive, so the claim goes and the task sends it once more.
        with transaction.atomic():
            dead = queryset.filter(failed_at__isnull=False).select_for_update()
            for row in dead:
                if row.release:
                    claims.release_claim(row.release)
            count = outbox.resend(dead)
        self.message_user(
            request,
            ngettext(
                "%(count)d tarea volverá a enviarse en el próximo minuto.",
                "%(count)d tareas volverán a enviarse en el próximo minuto.",
                count,
            )
            % {"count": count},
        )


@admin.register(SentEmail)
class SentEmailAdmin(ServicesWriteMixin, admin.ModelAdmin[SentEmail]):
    list_display = ("key", "state", "sent_at")
    list_filter = ("state",)
    search_fields = ("key",)
    readonly_fields = ("key", "state", "sent_at")


@admin.register(Challenge)
class ChallengeAdmin(ServicesWriteMixin, admin.ModelAdmin[Challenge]):
    """The lobby's challenges and the invitations by name: read-only (games.services)."""

    list_display = ("slug", "author", "invitee", "status", "created_at", "expires_at", "room")
    list_filter = ("status",)
    search_fields = ("slug", "author__username", "invitee__username")
    list_select_related = ("author", "invitee", "room")
    readonly_fields = [f.name for f in Challenge._meta.fields]


@admin.register(Message)
class MessageAdmin(ServicesWriteMixin, admin.ModelAdmin[Message]):
    """The words between players, for a moderator to read when one is reported; a
    moderator may delete one (nothing else depends on it), never edit it."""

    list_display = ("room", "seat", "text", "with_turn", "created_at")
    search_fields = ("room__slug", "seat__nickname", "text")
    list_select_related = ("room", "seat")
    readonly_fields = [f.name for f in Message._meta.fields]


@admin.register(Mute)
class MuteAdmin(ServicesWriteMixin, admin.ModelAdmin[Mute]):
    list_display = ("seat", "user", "muted_user", "created_at")
    list_select_related = ("seat", "seat__room", "user", "muted_user")
    readonly_fields = [f.name for f in Mute._meta.fields]
