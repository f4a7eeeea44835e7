from django.contrib import admin

from .models import EmailOptOut, Profile


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "display_name", "language", "notify", "email_confirmed")
    list_filter = ("language", "notify", "email_confirmed")
    search_fields = ("user__username", "user__email", "display_name")
    raw_id_fields = ("user",)


@admin.register(EmailOptOut)
class EmailOptOutAdmin(admin.ModelAdmin):
    list_display = ("email", "created_at")
    search_fields = ("email",)
