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
import random
from typing import Any

from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.utils import timezone

from leaderboard.challenges.models import Challenge, Condition, Phase
from leaderboard.challenges.services import add_reference

SLUG = "dstc11-demo"
PASSWORD = "trackboard-demo"
ORGANISER = "organiser"
#: username -> team name (None: no team yet, to try the sign-up-free path)
PARTICIPANTS = {"alice": "Team Alpha", "bob": "Team Beta", "carol": "Baselines"}
CONDITIONS = (
    ("tts-verbatim", "TTS-Verbatim", 0.0),
    ("human-verbatim", "Human-Verbatim", 0.05),
    ("human-paraphrased", "Human-Paraphrased", 0.09),
)

PLACES = [
    "Pizza Hut Fenditton",
    "Kiev Restaurant",
    "Nandos",
    "Sala Thong",
    "La Margherita",
    "Dojo Noodle Bar",
    "Lan Hong House",
    "Little Seoul",
    "The Junction",
    "Old Schools",
    "All Saints Church",
    "Scott Polar Museum",
    "Funky Fun House",
    "Christ College",
]
HOTELS = [
    "Cambridge Belfry",
    "University Arms Hotel",
    "El Shaddia Guesthouse",
    "Rosas Bed And Breakfast",
    "Acorn Guest House",
    "Hamilton Lodge",
]
STATIONS = ["Cambridge", "London Liverpool Street", "Ely", "Norwich", "Stevenage", "Peterborough"]
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
AREAS = ["centre", "north", "south", "east", "west"]
PRICES = ["cheap", "moderate", "expensive"]


def _time(rng: random.Random) -> str:
    return f"{rng.randint(7, 21)}:{rng.choice(['00', '15', '30', '45'])}"


SLOTS: dict[str, dict[str, Any]] = {
    "restaurant": {
        "food": ["indian", "chinese", "italian", "british", "european", "thai"],
        "area": AREAS,
        "pricerange": PRICES,
        "name": PLACES[:8],
        "bookday": DAYS,
        "bookpeople": [str(n) for n in range(1, 9)],
        "booktime": _time,
    },
    "hotel": {
        "area": AREAS,
        "pricerange": PRICES,
        "type": ["hotel", "guesthouse"],
        "stars": ["2", "3", "4", "5"],
        "parking": ["yes", "no"],
        "internet": ["yes", "no"],
        "name": HOTELS,
        "bookday": DAYS,
        "bookpeople": [str(n) for n in range(1, 9)],
        "bookstay": [str(n) for n in range(1, 6)],
    },
    "train": {
        "departure": STATIONS,
        "destination": STATIONS,
        "day": DAYS,
        "leaveat": _time,
        "arriveby": _time,
        "bookpeople": [str(n) for n in range(1, 9)],
    },
    "taxi": {"departure": PLACES, "destination": PLACES, "leaveat": _time, "arriveby": _time},
    "attraction": {
        "type": ["museum", "college", "theatre", "park", "architecture"],
        "area": AREAS,
        "name": PLACES[9:],
    },
}
PREFIX = {"restaurant": "sng", "hotel": "sng", "train": "mul", "taxi": "pmul", "attraction": "mul"}


def _value(rng: random.Random, domain: str, slot: str) -> str:
    choices = SLOTS[domain][slot]
    return choices(rng) if callable(choices) else rng.choice(choices)


def generate_gold(
    dialogues: int = 60, seed: int = 2022
) -> dict[str, list[dict[str, dict[str, str]]]]:
    """A seeded synthetic gold: cumulative states over 1-2 domains, 3-9 user turns each."""
    rng = random.Random(seed)
    gold: dict[str, list[dict[str, dict[str, str]]]] = {}
    for n in range(dialogues):
        domains = rng.sample(sorted(SLOTS), rng.choice([1, 1, 2]))
        dialog_id = f"{PREFIX[domains[0]]}{1000 + n * 7:04d}"
        state: dict[str, dict[str, str]] = {}
        turns = []
        for t in range(rng.randint(3, 9)):
            domain = domains[0] if t < 3 or len(domains) == 1 else domains[1]
            for slot in rng.sample(sorted(SLOTS[domain]), rng.randint(0, 2)):
                state.setdefault(domain, {})[slot] = _value(rng, domain, slot)
            turns.append({d: dict(s) for d, s in state.items()})
        gold[dialog_id] = turns
    return gold


def noisy_prediction(
    gold: dict[str, list[dict[str, dict[str, str]]]], error_rate: float, seed: int
) -> dict[str, list[dict[str, dict[str, str]]]]:
    """A system's output: each gold slot dropped or mis-valued with ``error_rate``, plus a few
    inserted slots. Errors persist over the rest of the dialogue, as a tracker's would."""
    rng = random.Random(seed)
    prediction = {}
    for dialog_id, turns in gold.items():
        wrong: dict[tuple[str, str], str | None] = {}
        out = []
        for state in turns:
            predicted: dict[str, dict[str, str]] = {}
            for domain, slots in state.items():
                for slot, value in slots.items():
                    key = (domain, slot)
                    if key not in wrong:
                        roll = rng.random()
                        wrong[key] = (
                            None
                            if roll < error_rate / 2
                            else _value(rng, domain, slot)
                            if roll < error_rate
                            else value
                        )
                    if wrong[key] is not None:
                        predicted.setdefault(domain, {})[slot] = wrong[key] or value
                if rng.random() < error_rate / 4:
                    extra = rng.choice(sorted(SLOTS[domain]))
                    predicted.setdefault(domain, {}).setdefault(extra, _value(rng, domain, extra))
            out.append(predicted)
        prediction[dialog_id] = out
    return prediction


def _as_file(data: dict[str, Any], name: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, json.dumps(data).encode(), content_type="application/json")


def build(stdout: Any = None) -> Challenge:
    """Create the demo (idempotent: an existing demo challenge is returned untouched)."""
    from leaderboard.submissions.services import run_scoring, submit
    from leaderboard.teams.models import Team
    from leaderboard.teams.services import create_team, register

    existing = Challenge.objects.filter(slug=SLUG).first()
    if existing is not None:
        return existing
    users = get_user_model().objects
    organiser = users.filter(username=ORGANISER).first() or users.create_user(
        ORGANISER, f"{ORGANISER}@example.org", PASSWORD, is_staff=True, is_superuser=True
    )
    now = timezone.now()
    gold = generate_gold()
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
    data = json.dumps(gold).encode()
    for condition in conditions:
        add_reference(condition, data, "demo-gold.json")

    systems = {
        "Team Alpha": [("AlphaDST (wav2vec2 + T5)", 0.08)],
        "Team Beta": [("Beta cascade", 0.16), ("Beta cascade + LM rescoring", 0.12)],
        "Baselines": [("Whisper + TripPy baseline", 0.2)],
    }
    for n, (username, team_name) in enumerate(PARTICIPANTS.items()):
        user = users.filter(username=username).first() or users.create_user(
            username, f"{username}@example.org", PASSWORD
        )
        team = Team.objects.filter(name=team_name).first() or create_team(name=team_name, user=user)
        register(team=team, challenge=challenge)
        for m, (method, rate) in enumerate(systems[team_name]):
            files = {
                key: _as_file(
                    noisy_prediction(gold, rate + extra, seed=100 * n + 10 * m + i), f"{key}.json"
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
            )
            # The same service the Celery task calls, run here so the demo needs no worker.
            run_scoring(submission.pk)
    if stdout is not None:
        stdout.write(f"created demo challenge {SLUG!r}")
    return challenge


def logins() -> list[tuple[str, str, str]]:
    """(username, password, role) of the demo accounts, for scripts/run to print."""
    return [(ORGANISER, PASSWORD, "organiser (admin)")] + [
        (user, PASSWORD, f"member of {team}") for user, team in PARTICIPANTS.items()
    ]
