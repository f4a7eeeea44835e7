"""Admin pages for rooms, seats, matches, games and turns.

Read-mostly: the services are the only writers of game state, so the game
fields are read-only here. Seeds of running games and seat token hashes never
appear (not in lists, not in forms).
"""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from games.models import Game, Match, Room, Seat, Turn


class ServicesWriteMixin:
    """Rows are born in games.services only: no "add" button here."""

    def has_add_permission(self, request, obj=None):
        return False


class SeatInline(admin.TabularInline):
    model = Seat
    fields = ("number", "nickname", "user", "email", "email_consent", "last_seen_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


class MatchInline(admin.TabularInline):
    model = Match
    fields = ("number", "status", "version", "turn_seat", "turn_started_at", "winner_side")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Room)
class RoomAdmin(ServicesWriteMixin, admin.ModelAdmin):
    list_display = ("slug", "status", "bot", "created_at", "last_move_at")
    list_filter = ("status", "bot")
    search_fields = ("slug", "seats__nickname", "seats__email")
    readonly_fields = ("slug", "rules", "bot", "created_at", "last_move_at", "ended_at")
    date_hierarchy = "created_at"
    inlines = [SeatInline, MatchInline]


@admin.register(Seat)
class SeatAdmin(ServicesWriteMixin, admin.ModelAdmin):
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


class GameInline(admin.TabularInline):
    model = Game
    fields = ("number", "status", "commitment", "rolls_drawn", "winner_side", "points")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Match)
class MatchAdmin(ServicesWriteMixin, admin.ModelAdmin):
    list_display = ("__str__", "status", "version", "turn_seat", "turn_started_at", "winner_side")
    list_filter = ("status",)
    search_fields = ("room__slug",)
    list_select_related = ("room", "turn_seat", "turn_seat__room")
    readonly_fields = [f.name for f in Match._meta.fields]
    inlines = [GameInline]


class TurnInline(admin.TabularInline):
    model = Turn
    fields = ("number", "side", "kind", "automatic", "dice", "notation", "cube_value", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Game)
class GameAdmin(ServicesWriteMixin, admin.ModelAdmin):
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
    def seed_if_revealed(self, game):
        # The seed of a running game would let its reader know every future roll.
        return game.revealed_seed or _("(secreta hasta el final de la partida)")


@admin.register(Turn)
class TurnAdmin(ServicesWriteMixin, admin.ModelAdmin):
    list_display = ("__str__", "side", "kind", "automatic", "dice", "notation", "created_at")
    list_filter = ("kind", "automatic")
    search_fields = ("game__match__room__slug",)
    list_select_related = ("game", "game__match", "game__match__room")
    readonly_fields = [f.name for f in Turn._meta.fields]

    def has_delete_permission(self, request, obj=None):
        return False
