"""The API's CSV of a leaderboard carries a column per declared system fact, headed by its key,
on the overview and on a condition, and a filter by a fact keeps only the rows that declared it.

Three identical submissions (a three-way tie, ranked 1, in the order submitted): First says
ASR system Whisper and 1.5 billion parameters, Second provided ASR and no size, Third nothing."""

from __future__ import annotations

import csv
import io

import pytest

from leaderboard.challenges.models import Challenge, Phase
from leaderboard.submissions.models import Submission
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.boards import built
from tests.leaderboard.factories import approved_team
from tests.leaderboard.web import scored_submission

pytestmark = pytest.mark.django_db

DECLARED = [
    {"key": "asr", "label": "ASR system", "kind": "choice",
     "choices": ["Whisper", "provided ASR"]},
    {"key": "params", "label": "Parameters", "kind": "number", "unit": "billion"},
]  # fmt: skip


@pytest.fixture
def board(actors):
    given = {
        "First": {"asr": "Whisper", "params": 1.5},
        "Second": {"asr": "provided ASR"},
        "Third": {},
    }
    teams = (actors.team, actors.other_team, approved_team(actors.phase))
    for team, (method, facts) in zip(teams, given.items(), strict=True):
        submission = scored_submission(team, actors.phase, method)
        Submission.objects.filter(pk=submission.pk).update(facts=facts)
    Challenge.objects.filter(pk=actors.phase.challenge_id).update(system_facts=DECLARED)
    Phase.changed(actors.phase.pk)  # the organisers' edits in the admin
    return built(actors.phase)


def _csv(phase, **query) -> list[dict[str, str]]:
    url = f"/api/v1/phases/{phase.pk}/leaderboard/"
    response = token_client().get(url, {"format": "csv", **query})
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_the_csv_has_a_column_per_declared_fact_in_rank_order(board):
    for query in ({}, {"condition": "tts-verbatim"}):
        rows = _csv(board, **query)
        assert [(r["method"], r["asr"], r["params"]) for r in rows] == [
            ("First", "Whisper", "1.5"),
            ("Second", "provided ASR", ""),
            ("Third", "", ""),
        ]
        header = list(rows[0])
        # after the entry, before the figures
        assert header[header.index("submitted_at") + 1 :][:2] == ["asr", "params"]


def test_a_filtered_csv_has_the_rows_that_declared_the_value(board):
    rows = _csv(board, **{"fact.asr": "provided ASR"})
    assert [(r["rank"], r["method"], r["asr"]) for r in rows] == [("1", "Second", "provided ASR")]
