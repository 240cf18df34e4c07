"""Who may see which numbers of a phase: the one rule pages, API, exports and charts share.

=====================  =======================  ================================
phase                  readers, other teams      the team's own submissions
=====================  =======================  ================================
public, no split       live leaderboard          every number
public, with split     live public leaderboard   public-split numbers only
hidden                 nothing                   status only, or public-split
                                                 numbers if ``show_own_public_score``
                                                 and the phase has a split
revealed               public leaderboard and    every number
                       published snapshots
=====================  =======================  ================================

A hidden phase without a split has no public part: "show own public score" then shows nothing,
the same on every page, in ``status.json``, the API and the CLI (``score_prefix`` is None).
Organisers of the challenge see everything once they have a second factor
(``challenges.factors``): an organiser without one reads as everyone else does until they set
one up, so a stolen password alone opens no hidden number. Whole-reference numbers of a split
phase mix in the private part, so before the reveal they count as private.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.shortcuts import get_object_or_404

from leaderboard.challenges.models import Phase, has_second_factor


@dataclass(frozen=True)
class Access:
    organiser: bool
    #: the live leaderboard on the public split (the whole reference without a split)
    board: bool
    #: published private-leaderboard snapshots
    snapshots: bool
    #: every number of the user's own team's submissions (whole reference, private part)
    own_full: bool
    #: the public-split numbers of the user's own team's submissions
    own_public: bool


def phase_or_404(slug: str, phase: str, user: Any = None) -> Phase:
    """The phase of a page's address (the challenge's slug, the phase's), with its challenge;
    with ``user``, whether they organise it too (``Phase.objects.read_by``), for ``access``."""
    return get_object_or_404(Phase.objects.read_by(user), challenge__slug=slug, slug=phase)


def access(phase: Phase, user: Any) -> Access:
    """What ``user`` may see of ``phase``. Whether they organise its challenge is the answer
    the phase's query has when it asked (``Phase.objects.asked_by(user)``, as the board's
    views load it: no query of its own), else a query; an organiser's view needs a second factor
    too (``has_second_factor``: a query, asked of organisers only, so no other reader pays)."""
    if phase.is_organised_by(user) and has_second_factor(user):
        return Access(True, True, True, True, True)
    if phase.revealed:
        return Access(False, True, True, True, True)
    if phase.results_visibility == Phase.Visibility.PUBLIC:
        return Access(False, True, False, not phase.has_split, True)
    return Access(False, False, False, False, phase.show_own_public_score and phase.has_split)
