"""The declared system facts in the readers' exports: a column per fact in the CSV (headed by
its key, after the entry) and each row's ``facts`` in the JSON, for the public board and the
published snapshot alike, on the hand-built phase of ``construction`` (public board A1, B2,
C1; final board B1, C1, A1).

What each run declares, written here: A1 Whisper and 1.5 billion parameters; B1 provided ASR
and 7; B2 Whisper and 0.5; C1 provided ASR, no size, and a language model named ``=1+1`` (a
cell a spreadsheet would run, written as text); C2 nothing."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from leaderboard.challenges.models import Challenge, Phase
from leaderboard.rankings.snapshots import reveal
from leaderboard.submissions.models import Submission
from tests.leaderboard.boards import built
from tests.leaderboard.organiser.conftest import KEY, close

pytestmark = pytest.mark.django_db

DECLARED = [
    {"key": "asr", "label": "ASR system", "kind": "choice",
     "choices": ["Whisper", "provided ASR"]},
    {"key": "params", "label": "Parameters", "kind": "number", "unit": "billion"},
    {"key": "lm", "label": "Language model", "kind": "text"},
]  # fmt: skip
GIVEN = {
    "A1": {"asr": "Whisper", "params": 1.5},
    "B1": {"asr": "provided ASR", "params": 7},
    "B2": {"asr": "Whisper", "params": 0.5},
    "C1": {"asr": "provided ASR", "lm": "=1+1"},
    "C2": {},
}


@pytest.fixture
def declared(world):
    Challenge.objects.filter(pk=world.phase.challenge_id).update(system_facts=DECLARED)
    for name, facts in GIVEN.items():
        Submission.objects.filter(pk=world.runs[name].pk).update(facts=facts)
    Phase.objects.filter(pk=world.phase.pk).update(results_visibility=Phase.Visibility.PUBLIC)
    Phase.changed(world.phase.pk)  # the organisers' edits in the admin
    world.phase = built(world.phase)
    return world


def _urls(phase):
    args = [phase.challenge.slug, phase.slug]
    return reverse("rankings:export-json", args=args), reverse("rankings:export-csv", args=args)


def _ranked(text: str, board: str, condition: str) -> list[dict[str, str]]:
    lines = csv.DictReader(io.StringIO(text))
    return [
        line
        for line in lines
        if line["board"] == board and line["condition"] == condition and not line["statistic"]
    ]


def test_the_public_board_exports_a_column_per_declared_fact(declared, client):
    json_url, csv_url = _urls(declared.phase)
    text = client.get(csv_url).text
    header = text.splitlines()[0].split(",")
    # after the entry (its baseline flag), before the metrics
    assert header[8:13] == ["baseline", "asr", "params", "lm", "jga"]
    for condition in ("overview", KEY):
        lines = _ranked(text, "public", condition)
        assert [(x["method"], x["asr"], x["params"], x["lm"]) for x in lines] == [
            ("run A1", "Whisper", "1.5", ""),
            ("run B2", "Whisper", "0.5", ""),
            ("run C1", "provided ASR", "", "'=1+1"),
        ]
    statistics = [x for x in csv.DictReader(io.StringIO(text)) if x["statistic"]]
    assert statistics and all(x["asr"] == x["params"] == x["lm"] == "" for x in statistics)

    data = client.get(json_url).json()["public"]
    assert [f["key"] for f in data["facts"]] == ["asr", "params", "lm"]
    expected = [GIVEN["A1"], GIVEN["B2"], GIVEN["C1"]]
    assert [r["facts"] for r in data["overview"]] == expected
    assert [r["facts"] for r in data["conditions"][0]["rows"]] == expected


def test_the_published_snapshot_exports_its_rows_facts(declared, client):
    close(declared.phase)
    reveal(declared.phase, declared.organiser)
    json_url, csv_url = _urls(declared.phase)
    lines = _ranked(client.get(csv_url).text, "final", KEY)
    assert [(x["method"], x["asr"], x["params"]) for x in lines] == [
        ("run B1", "provided ASR", "7"),
        ("run C1", "provided ASR", ""),
        ("run A1", "Whisper", "1.5"),
    ]
    final = client.get(json_url).json()["final"]
    assert [r["facts"] for r in final["overview"]] == [GIVEN["B1"], GIVEN["C1"], GIVEN["A1"]]


def test_a_board_without_declared_facts_exports_no_fact_column(world, client):
    Phase.objects.filter(pk=world.phase.pk).update(results_visibility=Phase.Visibility.PUBLIC)
    Phase.changed(world.phase.pk)
    phase = built(world.phase)
    text = client.get(_urls(phase)[1]).text
    assert text.splitlines()[0].split(",")[8:10] == ["baseline", "jga"]
    assert client.get(_urls(phase)[0]).json()["public"]["facts"] == []
