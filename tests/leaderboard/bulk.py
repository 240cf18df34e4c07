"""A large leaderboard made with bulk_create (no scoring): teams x conditions of Results whose
per-dialogue counts are random but consistent, for the query-count test and the benchmark."""

from __future__ import annotations

import datetime as dt
import random

from django.contrib.auth import get_user_model
from django.utils import timezone

from leaderboard.challenges.models import Phase
from leaderboard.submissions.models import Result, Submission
from leaderboard.teams.models import Team

DIALOGUES = 20
TURNS = 6
SLOTS = 10


def _dialogues(rng: random.Random) -> dict:
    """Per-dialogue statistics as the dstc11 scorer stores them (``Result.dialogues``)."""
    marks = ["".join(rng.choice("0111") for _ in range(TURNS)) for _ in range(DIALOGUES)]
    errors = [rng.randint(0, 3) + rng.randint(0, 3) + rng.randint(0, 2) for _ in marks]
    return {
        "ids": [f"dlg{d:04d}" for d in range(DIALOGUES)],
        "columns": {
            "jga": [[m.count("1") for m in marks], [TURNS] * DIALOGUES],
            "ser": [errors, [SLOTS] * DIALOGUES],
        },
        "turns": marks,
    }


def build(phase: Phase, teams: int, seed: int = 7, baselines: int = 3) -> None:
    """``teams`` teams, each with one scored submission and a Result per condition."""
    rng = random.Random(seed)
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"bulk{n}", password="!") for n in range(teams)
    )
    created = Team.objects.bulk_create(
        Team(name=f"Bulk team {n}", slug=f"bulk-team-{n}", created_by=u, invite_code=f"bulk{n}")
        for n, u in enumerate(users)
    )
    t0 = timezone.now() - dt.timedelta(days=1)
    submissions = Submission.objects.bulk_create(
        Submission(
            team=team,
            phase=phase,
            method_name=f"method {n}",
            status=Submission.Status.SCORED,
            charged=True,
            is_baseline=n < baselines,
            created_at=t0 + dt.timedelta(seconds=n),
        )
        for n, team in enumerate(created)
    )
    results = []
    for condition in phase.conditions.order_by("order"):
        reference = condition.references.get(active=True)
        for submission in submissions:
            dialogues = _dialogues(rng)
            (correct, turns), (errors, n_ref) = (
                dialogues["columns"]["jga"],
                dialogues["columns"]["ser"],
            )
            jga = 100.0 * sum(correct) / sum(turns)
            ser = 100.0 * sum(errors) / sum(n_ref)
            results.append(
                Result(
                    submission=submission,
                    condition=condition,
                    reference=reference,
                    signature="bulk",
                    metrics={"jga": jga, "ser": ser},
                    intervals={"jga": [jga - 3, jga + 3], "ser": [ser - 3, ser + 3]},
                    primary=jga,
                    primary_low=jga - 3,
                    primary_high=jga + 3,
                    tiebreak=ser,
                    dialogues=dialogues,
                )
            )
    Result.objects.bulk_create(results, batch_size=500)
