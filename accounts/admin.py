from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User

from .forms import AdminLoginForm
from .models import EmailOptOut, Profile

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
