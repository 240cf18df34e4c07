"""The admin's user pages, with the site's rule for addresses: one account per address,
whatever its capitals (the unique index would otherwise answer a duplicate with an error page).
The confirmation of an address shows on the user's page."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm

from leaderboard.accounts.models import EmailConfirmation
from leaderboard.accounts.services import TAKEN, address_taken

User = get_user_model()


class AccountChangeForm(UserChangeForm):
    def clean_email(self) -> str:
        address = User.objects.normalize_email(self.cleaned_data.get("email") or "")
        if address and address_taken(address, exclude=self.instance):
            raise forms.ValidationError(TAKEN)
        return address


class ConfirmationInline(admin.StackedInline):
    model = EmailConfirmation
    extra = 0
    can_delete = True
    readonly_fields = ("email", "confirmed_at")


admin.site.unregister(User)


@admin.register(User)
class AccountAdmin(UserAdmin):
    form = AccountChangeForm
    inlines = [ConfirmationInline]
