"""The profile's forms: API tokens, the mail choice, and the deletion of the account (the
password asked again); the new-address form, allauth's with the site's rule. Sign-up, log-in
and the password's forms are django-allauth's."""

from __future__ import annotations

from typing import Any

from allauth.account.forms import AddEmailForm, SignupForm
from django import forms
from django.contrib.auth import authenticate

from leaderboard.accounts.services import TAKEN, address_taken
from leaderboard.api import services as tokens
from leaderboard.api.models import Scope


class PasswordAgainForm(forms.Form):
    """A form that asks for the user's password again (``request``: the user's request)."""

    password = forms.CharField(
        label="Your password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, *args: Any, request: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.request = request

    def clean_password(self) -> str:
        # Through authenticate(), so a wrong password counts as a failed log-in (the lockout
        # sees guesses made here too).
        password = self.cleaned_data["password"]
        user = self.request.user
        if authenticate(self.request, username=user.get_username(), password=password) is None:
            raise forms.ValidationError("That is not your password.")
        return str(password)


class AccountSignupForm(SignupForm):
    """allauth's sign-up form, saying what the address is for."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["email"].label = "E-mail address"
        self.fields["email"].help_text = (
            "Used to reset your password and to tell you when your team's submissions are "
            "scored or fail (you can turn that off on your profile). Never shown to others."
        )


class AddressForm(AddEmailForm):
    """allauth's form for a new address (it replaces the account's once its link is opened),
    refusing, as sign-up does, an address another account has whatever its capitals (one
    address, one account): allauth would otherwise add it unconfirmed and mail its owner."""

    def clean_email(self) -> str:
        if address_taken(self.cleaned_data["email"], exclude=self.user):
            raise forms.ValidationError(TAKEN)
        return str(super().clean_email())


class TokenForm(forms.Form):
    """A new API token: its name, what it may do (the "organise" scope offered only to those
    who organise a challenge or are staff) and how long it lives."""

    name = forms.CharField(
        max_length=100,
        required=False,
        label="Token name",
        help_text="To recognise it later, e.g. “laptop” or “cluster”.",
    )
    scope = forms.ChoiceField(
        label="It may",
        required=False,
        initial=Scope.SUBMIT,
        help_text="Each includes the ones above it. For a CI job that uploads runs, “submit”.",
    )
    days = forms.TypedChoiceField(
        label="Expires in",
        coerce=int,
        choices=[(days, f"{days} days") for days in tokens.LIFETIME_DAYS],
        required=False,
        empty_value=tokens.DEFAULT_LIFETIME_DAYS,  # type: ignore[arg-type]  # any value; the stubs say str
        initial=tokens.DEFAULT_LIFETIME_DAYS,
        help_text="You can renew it here before or after it expires.",
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        scope = self.fields["scope"]
        assert isinstance(scope, forms.ChoiceField)
        scope.choices = [(s.value, s.label) for s in tokens.scopes_for(user)]

    def clean_scope(self) -> str:
        """Left out (a script's request), a token gets the default scope."""
        return str(self.cleaned_data["scope"] or Scope.SUBMIT)


class MailForm(forms.Form):
    submission_mail = forms.BooleanField(
        required=False,
        label="E-mail me about my teams",
        help_text="One message when a submission is scored or fails, and when that changes "
        "(none when organisers re-score it to the same outcome); when a team's registration "
        "is approved or refused; and, for organisers, when a registration waits for approval.",
    )
    announcement_mail = forms.BooleanField(
        required=False,
        label="E-mail me the announcements of my challenges",
        help_text="The organisers' announcements (final results among them) of each challenge "
        "a team of yours is registered for, when they choose to mail them; every announcement "
        "is also on the challenge's page and in its feed.",
    )


class DeleteAccountForm(PasswordAgainForm):
    """The password asked again, and for each team of which the user is the last owner and
    that has other members (``deletion.plan``), the member who owns it next."""

    def __init__(self, *args: Any, request: Any, handed_over: Any = (), **kwargs: Any) -> None:
        super().__init__(*args, request=request, **kwargs)
        self.heir_fields: list[tuple[Any, str]] = []
        for team, people in handed_over:
            name = f"heir_{team.pk}"
            self.fields[name] = forms.TypedChoiceField(
                label=f"Who owns {team.name} after you",
                choices=[("", "choose a member")]
                + [(person.pk, person.get_username()) for person in people],
                coerce=int,
            )
            self.heir_fields.append((team, name))

    def heirs(self) -> dict[int, int]:
        return {team.pk: self.cleaned_data[name] for team, name in self.heir_fields}
