"""The demo challenge: synthetic DSTC11-like data, demo accounts and a few scored submissions.

Everything is generated here, seeded, so ``manage.py demo`` gives the same leaderboard on
every machine. The data imitates spoken MultiWOZ's shape (one cumulative state per user turn,
``{dialog_id: [{domain: {slot: value}}]}``, booking slots with a ``book`` prefix); the three
conditions share one gold, as the published DSTC11 test set does, while the synthetic systems
make more errors on human speech than on TTS and more again on paraphrases.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.utils import timezone

from leaderboard.accounts.services import confirm
from leaderboard.challenges.models import Challenge, Condition, Phase
from leaderboard.challenges.services import add_reference
from leaderboard.rankings.models import ReportedResult
from leaderboard.submissions.services import run_scoring, submit
from leaderboard.teams.models import Team
from leaderboard.teams.services import create_team, register
from scoring.synth import make_gold, make_prediction

SLUG = "dstc11-demo"
#: the demo's second phase: hidden results, public/private split
HIDDEN_SLUG = "final"
PASSWORD = "trackboard-demo"
ORGANISER = "organiser"
#: username -> team name (None: no team yet, to try the sign-up-free path)
PARTICIPANTS = {"alice": "Team Alpha", "bob": "Team Beta", "carol": "Baselines"}
#: what every demo submission declares about its system (``challenges.facts``)
SYSTEM_FACTS = [
    {
        "key": "asr",
        "label": "ASR system",
        "kind": "choice",
        "required": True,
        "choices": ["provided ASR", "Whisper", "other"],
        "help": "the speech recogniser whose transcripts the tracker read",
    },
    {
        "key": "params",
        "label": "Parameters",
        "kind": "number",
        "unit": "billion",
        "help": "the tracker's model size, in billions of parameters",
    },
]
CONDITIONS = (
    ("tts-verbatim", "TTS-Verbatim", 0.0),
    ("human-verbatim", "Human-Verbatim", 0.05),
    ("human-paraphrased", "Human-Paraphrased", 0.09),
)


def _as_file(data: dict[str, Any], name: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, json.dumps(data).encode(), content_type="application/json")


def build(stdout: Any = None) -> Challenge:
    """Create the demo (idempotent: an existing demo challenge is returned untouched)."""
    existing = Challenge.objects.filter(slug=SLUG).first()
    if existing is not None:
        return existing
    users = get_user_model().objects
    organiser = users.filter(username=ORGANISER).first() or users.create_user(
        ORGANISER, f"{ORGANISER}@example.org", PASSWORD, is_staff=True, is_superuser=True
    )
    confirm(organiser)
    now = timezone.now()
    gold = make_gold()
    with transaction.atomic():
        challenge = Challenge.objects.create(
            slug=SLUG,
            title="DSTC11 Speech-Aware DST (demo)",
            description=(
                "A demo of the DSTC11 speech-aware dialogue state tracking track on synthetic "
                "spoken-MultiWOZ-like data: track the user's goal from speech, per audio "
                "condition. Ranked by Joint Goal Accuracy; Slot Error Rate is also reported."
            ),
            rules="One prediction file per condition; five submissions per day.",
            system_facts=SYSTEM_FACTS,
        )
        challenge.organisers.add(organiser)
        phase = Phase.objects.create(
            challenge=challenge,
            name="Test",
            slug="test",
            opens_at=now - dt.timedelta(days=7),
            closes_at=now + dt.timedelta(days=365),
            daily_quota=5,
            total_quota=100,
        )
        conditions = [
            Condition.objects.create(phase=phase, key=key, label=label, order=i)
            for i, (key, label, _) in enumerate(CONDITIONS)
        ]
        # A second phase as organisers run a final test: results hidden until the reveal,
        # half of the dialogues public, teams see their own public-part score, two finals.
        hidden = Phase.objects.create(
            challenge=challenge,
            name="Final test (hidden)",
            slug=HIDDEN_SLUG,
            order=1,
            opens_at=now - dt.timedelta(days=1),
            closes_at=now + dt.timedelta(days=30),
            daily_quota=5,
            results_visibility=Phase.Visibility.HIDDEN,
            split_fraction=0.5,
            split_seed=2023,
            show_own_public_score=True,
            max_final_selections=2,
        )
        hidden_conditions = [
            Condition.objects.create(phase=hidden, key=key, label=label, order=i)
            for i, (key, label, _) in enumerate(CONDITIONS)
        ]
        ReportedResult.objects.create(
            phase=phase,
            condition=conditions[0],
            label="Published system (synthetic example)",
            metrics={"jga": 45.0},
            source="An example of a figure reported in a paper; not scored here.",
            shown=True,
        )
    data = json.dumps(gold).encode()
    for condition in conditions + hidden_conditions:
        add_reference(condition, data, "demo-gold.json")

    # method, error rate, what it declares
    systems = {
        "Team Alpha": [("AlphaDST (wav2vec2 + T5)", 0.08, {"asr": "other", "params": 3})],
        "Team Beta": [
            ("Beta cascade", 0.16, {"asr": "provided ASR", "params": 0.22}),
            ("Beta cascade + LM rescoring", 0.12, {"asr": "Whisper", "params": 11}),
        ],
        "Baselines": [("Whisper + TripPy baseline", 0.2, {"asr": "Whisper", "params": 0.11})],
    }
    for n, (username, team_name) in enumerate(PARTICIPANTS.items()):
        user = users.filter(username=username).first() or users.create_user(
            username, f"{username}@example.org", PASSWORD
        )
        # The demo's accounts take part at once: their (example) addresses count as confirmed.
        confirm(user)
        team = Team.objects.filter(name=team_name).first() or create_team(name=team_name, user=user)
        register(team=team, challenge=challenge)
        for m, (method, rate, facts) in enumerate(systems[team_name]):
            files = {
                key: _as_file(
                    make_prediction(gold, rate + extra, seed=100 * n + 10 * m + i), f"{key}.json"
                )
                for i, (key, _, extra) in enumerate(CONDITIONS)
            }
            submission = submit(
                team=team,
                phase=phase,
                user=user,
                files=files,
                method_name=method,
                method_description="Synthetic demo system.",
                is_baseline=team_name == "Baselines",
                enqueue=False,
                facts=facts,
            )
            # The same service the Celery task calls, run here so the demo needs no worker.
            run_scoring(submission.pk)
            if m == 0 and team_name != "Baselines":
                hidden_files = {
                    key: _as_file(
                        make_prediction(gold, rate + extra, seed=7 + n + i), f"{key}.json"
                    )
                    for i, (key, _, extra) in enumerate(CONDITIONS)
                }
                hidden_run = submit(
                    team=team,
                    phase=hidden,
                    user=user,
                    files=hidden_files,
                    method_name=method,
                    method_description="Synthetic demo system.",
                    enqueue=False,
                    facts=facts,
                )
                run_scoring(hidden_run.pk)
    if stdout is not None:
        stdout.write(f"created demo challenge {SLUG!r}")
    return challenge


def logins() -> list[tuple[str, str, str]]:
    """(username, password, role) of the demo accounts, for scripts/run to print."""
    return [(ORGANISER, PASSWORD, "organiser (admin)")] + [
        (user, PASSWORD, f"member of {team}") for user, team in PARTICIPANTS.items()
    ]
