"""The standing world of these tests: a hidden, split phase (``construction``), teams A, B and
C with the runs listed there, an organiser, an outsider; its boards built, as the board's
worker builds them after each change. ``close`` moves the phase's dates, records the close as
beat's ``close_phases`` does (the phase's version moves) and builds the boards, as the worker
does after that change: what they show is unchanged (a test that changes something else builds
the boards again)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

import pytest
from django.utils import timezone

from leaderboard.challenges.models import Phase
from leaderboard.challenges.services import close_phases
from leaderboard.submissions import services
from leaderboard.submissions.services import select_final
from tests.leaderboard.boards import built
from tests.leaderboard.factories import (
    UserFactory,
    approved_team,
    phase_with_references,
    upload,
    with_second_factor,
)
from tests.leaderboard.organiser import construction as c

KEY = "tts-verbatim"


@dataclass
class World:
    phase: Phase
    organiser: object
    outsider: object
    teams: dict = field(default_factory=dict)
    runs: dict = field(default_factory=dict)


def submit(team, phase, name: str):
    public, private = c.RUNS[name]
    submission = services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files={KEY: upload(c.prediction(public, private), f"{name}.json")},
        method_name=f"run {name}",
        enqueue=False,
    )
    assert services.run_scoring(submission.pk) == "scored"
    submission.refresh_from_db()
    return submission


def close(phase: Phase) -> None:
    now = timezone.now()
    Phase.objects.filter(pk=phase.pk).update(
        opens_at=now - dt.timedelta(days=10), closes_at=now - dt.timedelta(minutes=1)
    )
    close_phases()  # as beat records the close
    built(phase)  # as the board's worker builds them after it
    phase.refresh_from_db()


@pytest.fixture
def world(db) -> World:
    phase = phase_with_references(
        c.GOLD_BYTES,
        keys=(KEY,),
        results_visibility=Phase.Visibility.HIDDEN,
        split_fraction=c.FRACTION,
        split_seed=c.SEED,
        show_own_public_score=True,
        max_final_selections=1,
    )
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    w = World(phase=phase, organiser=organiser, outsider=UserFactory())
    for letter in "ABC":
        w.teams[letter] = approved_team(phase)
    for name in c.RUNS:
        w.runs[name] = submit(w.teams[name[0]], phase, name)
    select_final(w.runs["B1"], w.teams["B"].created_by, True)
    w.phase = built(phase)  # as the board's worker builds the boards after these changes
    return w
