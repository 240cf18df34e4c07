"""The organiser dashboard's forms."""

from __future__ import annotations

from django import forms

from leaderboard.challenges.announcements import TITLE_LENGTH


class AnnouncementForm(forms.Form):
    title = forms.CharField(max_length=TITLE_LENGTH, label="Title")
    body = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8}),
        label="Text",
        help_text="Markdown, shown as the challenge's pages are: no raw HTML, no images.",
    )
    mail = forms.BooleanField(
        required=False,
        label="Mail it to every registered team",
        help_text="One message to each member of every approved team (addressed to them "
        "alone), but those who turned announcement mail off on their profile.",
    )
