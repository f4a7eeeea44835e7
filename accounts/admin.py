from typing import TypeVar

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User
from django.db.models import Model
from django.http import HttpRequest

from .forms import AdminLoginForm
from .models import EmailOptOut, Profile, Rating, RatingChange, Vacation

# The admin's log-in under the site's lockouts (accounts.lockout).
admin.site.login_form = AdminLoginForm


class ProfileInline(admin.StackedInline[Profile, User]):
    model = Profile
    can_delete = False


# Django's user admin, with the profile on the same page.
admin.site.unregister(get_user_model())


@admin.register(get_user_model())
class MesaUserAdmin(UserAdmin[User]):
    inlines = [ProfileInline]


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin[Profile]):
    list_display = ("user", "display_name", "language", "notify", "email_confirmed")
    list_filter = ("language", "notify", "email_confirmed")
    search_fields = ("user__username", "user__email", "display_name")
    raw_id_fields = ("user",)


@admin.register(EmailOptOut)
class EmailOptOutAdmin(admin.ModelAdmin[EmailOptOut]):
    list_display = ("email", "created_at")
    search_fields = ("email",)


_M = TypeVar("_M", bound=Model)


# Ratings are written only by games' rating service (the recompute checks
# them against the records): the admin reads them, never edits them.
class ReadOnlyAdmin(admin.ModelAdmin[_M]):
    def has_add_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return False


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin[Rating]):
    list_display = ("__str__", "user", "bot", "rating", "experience", "matches", "updated_at")
    search_fields = ("user__username", "bot")


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin[RatingChange]):
    list_display = ("player", "opponent", "match", "won", "length", "delta", "created_at")
    raw_id_fields = ("player", "opponent", "match")


@admin.register(Vacation)
class VacationAdmin(ReadOnlyAdmin[Vacation]):
    list_display = ("user", "starts_at", "ends_at", "ended_at")
    search_fields = ("user__username",)
