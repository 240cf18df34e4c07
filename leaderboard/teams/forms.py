from __future__ import annotations

from django import forms


class TeamForm(forms.Form):
    # The service checks the length once the name is normalised (teams.names).
    name = forms.CharField(
        max_length=200,
        label="Team name",
        help_text="Shown on the leaderboards. It must read differently from every other "
        "team's name (case, spacing and look-alike letters of other scripts do not count).",
    )


class JoinForm(forms.Form):
    code = forms.CharField(max_length=32, label="Invite code", help_text="Ask a member for it.")
