"""The admin's user pages, with the site's rule for addresses: one account per address,
whatever its capitals (the unique index would otherwise answer a duplicate with an error page).
The user's addresses, and which are confirmed, show on the user's page."""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from allauth.mfa import admin as mfa_admin  # noqa: F401 (registers the page replaced below)
from allauth.mfa.models import Authenticator
from allauth.socialaccount.models import SocialAccount, SocialApp, SocialToken
from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.http import HttpRequest

from leaderboard.accounts.services import TAKEN, address_taken

User = get_user_model()


class AccountChangeForm(UserChangeForm):
    def clean_email(self) -> str:
        address = User.objects.normalize_email(self.cleaned_data.get("email") or "")
        if address and address_taken(address, exclude=self.instance):
            raise forms.ValidationError(TAKEN)
        return address


class AddressInline(admin.TabularInline):
    """The account's addresses and whether each is confirmed (django-allauth's rows)."""

    model = EmailAddress
    extra = 0
    can_delete = True


admin.site.unregister(User)


@admin.register(User)
class AccountAdmin(UserAdmin):
    form = AccountChangeForm
    inlines = [AddressInline]


# Identity providers come from the environment (SOCIALACCOUNT_PROVIDERS), never from rows, and
# their tokens are secrets: neither has an admin page. A person's linked providers can be seen
# and removed (the person then signs in as before), not written.
admin.site.unregister(SocialApp)
admin.site.unregister(SocialToken)
admin.site.unregister(SocialAccount)


@admin.register(SocialAccount)
class LinkedProviderAdmin(admin.ModelAdmin):
    list_display = ("user", "provider", "uid", "last_login")
    search_fields = ("user__username", "uid")
    readonly_fields = ("user", "provider", "uid", "last_login", "date_joined", "extra_data")

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False


# allauth.mfa's own page (registered on import, whatever the apps' order) shows and edits
# the secret: replaced.
admin.site.unregister(Authenticator)


@admin.register(Authenticator)
class AuthenticatorAdmin(admin.ModelAdmin):
    """A person's second factors (allauth.mfa), for the operators: seen without their secrets,
    and removed by a superuser when the person lost both the phone and the recovery codes (they
    set up a new one at their next visit to an organiser page). Nobody adds or edits one here:
    a person sets up their own."""

    list_display = ("user", "type", "created_at", "last_used_at")
    list_filter = ("type",)
    search_fields = ("user__username", "user__email")
    fields = ("user", "type", "created_at", "last_used_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_superuser)
