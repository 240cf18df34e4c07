"""A large leaderboard made with bulk_create (no scoring): teams x conditions of Results whose
per-dialogue counts are random but consistent, for the query-count test and the benchmark."""

from __future__ import annotations

import datetime as dt
import random

from django.contrib.auth import get_user_model
from django.utils import timezone

from leaderboard.challenges.models import Phase
from leaderboard.submissions import ratios
from leaderboard.submissions.models import Result, Submission
from leaderboard.teams.models import Team
from scoring.taskapi import DialogueRatios

#: per result: the tests' size; a real DSTC11 result holds about 1,000 (the benchmarks' default)
DIALOGUES = 20
TURNS = 6
SLOTS = 10


def _dialogues(rng: random.Random, count: int) -> DialogueRatios:
    """Per-dialogue statistics as the dstc11 scorer computes them."""
    marks = ["".join(rng.choice("0111") for _ in range(TURNS)) for _ in range(count)]
    errors = [rng.randint(0, 3) + rng.randint(0, 3) + rng.randint(0, 2) for _ in marks]
    return DialogueRatios(
        tuple(f"dlg{d:04d}" for d in range(count)),
        {"jga": ([m.count("1") for m in marks], [TURNS] * count), "ser": (errors, [SLOTS] * count)},
        tuple(marks),
    )


def build(
    phase: Phase,
    teams: int,
    seed: int = 7,
    baselines: int = 3,
    dialogues: int = DIALOGUES,
    name: str = "bulk",
) -> None:
    """``teams`` teams, each with one scored submission and a Result per condition, of
    ``dialogues`` dialogues each (``name`` tells the teams of two such boards apart)."""
    rng = random.Random(seed)
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"{name}{n}", password="!") for n in range(teams)
    )
    created = Team.objects.bulk_create(
        Team(
            name=f"{name.capitalize()} team {n}",
            slug=f"{name}-team-{n}",
            created_by=u,
            invite_code=f"{name}{n}",
        )
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
            stored = _dialogues(rng, dialogues)
            (correct, turns), (errors, n_ref) = stored.columns["jga"], stored.columns["ser"]
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
                    **ratios.columns(stored, "jga"),
                )
            )
    Result.objects.bulk_create(results, batch_size=500)
