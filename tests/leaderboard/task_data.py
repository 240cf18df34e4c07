"""Tiny references of the other tasks, worked by hand, and helpers that take a prediction
through the site (submit page, Celery task body, the board's build, leaderboard page), shared
by the task tests."""

from __future__ import annotations

from django.urls import reverse

from leaderboard.challenges.services import add_reference
from leaderboard.submissions import tasks
from leaderboard.submissions.models import Submission
from tests.leaderboard.factories import (
    ChallengeFactory,
    ConditionFactory,
    PhaseFactory,
    approved_team,
    upload,
)
from tests.leaderboard.web import log_in

OPTIONS = {"n_boot": 200, "seed": 12345}

# --- MultiWOZ 2.2 ---------------------------------------------------------------------------
SCHEMA = [
    {
        "service_name": "hotel",
        "slots": [
            {"name": "hotel-area", "is_categorical": True, "possible_values": ["north", "south"]},
            {"name": "hotel-name", "is_categorical": False, "possible_values": []},
        ],
        "intents": [{"name": "find_hotel"}],
    }
]


def _user(values: dict[str, list[str]]) -> dict:
    return {
        "speaker": "USER",
        "frames": [
            {
                "service": "hotel",
                "state": {
                    "active_intent": "find_hotel",
                    "requested_slots": [],
                    "slot_values": values,
                },
            }
        ],
    }


# Three user turns; the second lists two acceptable names (multi-reference).
MWZ_GOLD = [
    {
        "dialogue_id": "d1",
        "services": ["hotel"],
        "turns": [
            _user({"hotel-area": ["north"]}),
            {"speaker": "SYSTEM", "frames": []},
            _user({"hotel-area": ["north"], "hotel-name": ["acorn guest house", "the acorn"]}),
        ],
    },
    {"dialogue_id": "d2", "services": ["hotel"], "turns": [_user({"hotel-name": ["lensfield"]})]},
]
# flat-states predictions, one state per user turn
MWZ_PERFECT = {
    "d1": [{"hotel-area": "north"}, {"hotel-area": "north", "hotel-name": "acorn guest house"}],
    "d2": [{"hotel-name": "lensfield"}],
}
# turn 1 right; turn 2 right through the *second* listed name; d2 wrong: JGA 2/3 = 66.67.
# Categorical slots only (area): right in every turn (d2 has none on either side): 100.
MWZ_PARTIAL = {
    "d1": [{"hotel-area": "north"}, {"hotel-area": "north", "hotel-name": "the acorn"}],
    "d2": [{"hotel-name": "alpha milton"}],
}
# nothing predicted: every gold state is non-empty, so JGA 0; categorical JGA: only d2 (no
# categorical gold slot) is right: 1/3 = 33.33.
MWZ_EMPTY = {"d1": [{}, {}], "d2": [{}]}

# --- DVD-DST --------------------------------------------------------------------------------
DVD_GOLD = {
    "v1": [
        "<frame10> <frame50> <obj1> SIZE large COLOR red",
        "<obj1> SIZE large <obj2> SHAPE cube",
    ],
    "v2": ["<frame0> <frame100> <obj3> MATERIAL metal"],
}
DVD_PERFECT = DVD_GOLD
# the second turn of v1 has a wrong shape: 2 of 3 turns jointly right, Joint Acc 66.67
DVD_PARTIAL = {
    "v1": [
        "<frame10> <frame50> <obj1> SIZE large COLOR red",
        "<obj1> SIZE large <obj2> SHAPE sphere",
    ],
    "v2": ["<frame0> <frame100> <obj3> MATERIAL metal"],
}
DVD_EMPTY = {"v1": ["", ""], "v2": [""]}


def make_phase(task: str, gold: bytes, files: dict | None = None):
    challenge = ChallengeFactory(task=task, scorer_options=OPTIONS)
    phase = PhaseFactory(challenge=challenge)
    condition = ConditionFactory(phase=phase, key="test", label="Test set")
    add_reference(condition, gold, "gold.json", files)
    return phase


def submit_through_the_page(client, phase, prediction: dict, method: str) -> Submission:
    """A new team's upload through the submit page, scored by the task's body, then the
    phase's boards built, as the board's worker builds them after each change."""
    from tests.leaderboard.boards import built

    team = approved_team(phase)
    log_in(client, team.created_by)
    url = reverse("submissions:submit", args=[phase.challenge.slug, phase.slug])
    payload = {"method_name": method, "method_description": "", "url": ""}
    payload["file_test"] = upload(prediction, f"{method}.json")
    response = client.post(url, payload)
    assert response.status_code == 302, response.text[:2000]
    submission = Submission.objects.get(team=team)
    assert tasks.score_submission(submission.pk) == "scored"
    built(phase)
    return submission


def board_page(client, phase) -> str:
    client.logout()
    url = reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])
    response = client.get(url)
    assert response.status_code == 200
    return response.text
