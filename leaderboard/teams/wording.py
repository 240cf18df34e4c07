"""What a team's page says, decided here so that its template only prints it: the sentences
and the two switches (who sees the members, whether the team appears anonymously). The
sentences are HTML (``SafeString``): their own text as written, the team's values escaped."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe


@dataclass(frozen=True)
class Switch:
    """A setting as the page explains it, and the form that flips it: the value it posts and
    its button's label."""

    sentence: SafeString
    value: str
    label: str


def listing_switch(listed: bool) -> Switch:
    """Who sees the members' names, and the button that changes it."""
    if listed:
        return Switch(
            mark_safe("This page lists the members' names to everyone."),
            "0",
            "Show the names to the team and organisers only",
        )
    return Switch(
        mark_safe(
            "Only the team's members and the organisers of its challenges see the members' names "
            "on this page; others see how many you are."
        ),
        "1",
        "List the members to everyone",
    )


def display_switch(anonymous: bool, label: str) -> Switch:
    """Where the team's name shows, and the button that hides or shows it again."""
    if anonymous:
        return Switch(
            format_html(
                "Public boards, exports, charts and published snapshots show this team as “{0}”, "
                "and this page is shown to its members and the organisers only; only they see its "
                "name. Showing the name again shows it on the live boards; snapshots published "
                "while the team was anonymous keep “{0}”, so readers may then link the two.",
                label,
            ),
            "0",
            "Show our name",
        )
    return Switch(
        format_html(
            "Public boards show this team's name. Appearing anonymously replaces it by “{}” "
            "everywhere readers look, earlier snapshots included, and hides this page from "
            "everyone but the members and the organisers.",
            label,
        ),
        "1",
        "Appear anonymously",
    )


def member_count(count: int) -> SafeString:
    """What a reader who may not see the names learns of the members."""
    return format_html(
        "{} {}. The team shows its members' names to its members and the organisers only.",
        count,
        "member" if count == 1 else "members",
    )


def private_note(member: bool, listed: bool) -> SafeString:
    """The reminder, to a member of a team that does not list its members, of who sees them."""
    if member and not listed:
        return mark_safe(
            "Only the team's members and the organisers of its challenges see these names."
        )
    return mark_safe("")
