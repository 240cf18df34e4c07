"""Sign-up: Django's UserCreationForm plus an e-mail address (password reset needs one)."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm


class SignUpForm(UserCreationForm):
    email = forms.EmailField(
        required=True, help_text="Used only to reset your password.", label="E-mail address"
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
