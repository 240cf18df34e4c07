"""The pages' access rules, as the API applies them. Each check calls the service the page
calls; nothing is decided here that a page decides differently."""

from __future__ import annotations

from typing import Any

from rest_framework import status

from leaderboard.api.errors import ApiError
from leaderboard.challenges.models import Phase
from leaderboard.challenges.visibility import Access, access
from leaderboard.teams.models import Team
from leaderboard.teams.services import approved_teams


def require_results_visible(phase: Phase, user: Any) -> Access:
    """The leaderboard page shows no scores of a hidden phase except to its organisers: what
    ``user`` may see of ``phase``, when it includes the board."""
    rights = access(phase, user)
    if not rights.board:
        raise ApiError(
            "results_hidden",
            "The results of this phase are hidden until the organisers reveal them.",
            status_code=status.HTTP_403_FORBIDDEN,
        )
    return rights


def submitting_team(user: Any, phase: Phase, slug: str) -> Team:
    """The team ``user`` submits for: one of their approved teams for the phase's challenge
    (the submit page offers exactly these), chosen by ``slug`` when there are several."""
    teams = list(approved_teams(user, phase.challenge))
    if not teams:
        raise ApiError(
            "not_eligible",
            "None of your teams is an approved participant of this challenge; register a team "
            "on the challenge page first.",
            status_code=status.HTTP_403_FORBIDDEN,
        )
    if slug:
        chosen = next((team for team in teams if team.slug == slug), None)
        if chosen is None:
            raise ApiError(
                "invalid",
                "The request is invalid; see details.",
                details={"team": [f"You have no approved team {slug!r} in this challenge."]},
            )
        return chosen
    if len(teams) > 1:
        raise ApiError(
            "invalid",
            "The request is invalid; see details.",
            details={"team": ["You are in several teams of this challenge; name one: "
                              + ", ".join(team.slug for team in teams)]},
        )  # fmt: skip
    return teams[0]
