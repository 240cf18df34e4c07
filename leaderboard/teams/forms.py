from __future__ import annotations

from django import forms


class TeamForm(forms.Form):
    name = forms.CharField(max_length=100, label="Team name")


class JoinForm(forms.Form):
    code = forms.CharField(max_length=32, label="Invite code", help_text="Ask a member for it.")
