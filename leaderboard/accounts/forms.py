"""Sign-up: Django's UserCreationForm plus an e-mail address (for password resets and, unless
turned off on the profile, the outcome of the team's submissions); the profile's mail choice."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm


class SignUpForm(UserCreationForm):
    email = forms.EmailField(
        required=True,
        help_text="Used to reset your password and to tell you when your team's submissions "
        "are scored or fail (you can turn that off on your profile). Never shown to others.",
        label="E-mail address",
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        required=False,
        label="Token name",
        help_text="To recognise it later, e.g. “laptop” or “cluster”.",
    )


class MailForm(forms.Form):
    submission_mail = forms.BooleanField(
        required=False,
        label="E-mail me about my team's submissions",
        help_text="One message when a submission is scored or fails, and when that changes; "
        "none when organisers re-score it to the same outcome.",
    )
