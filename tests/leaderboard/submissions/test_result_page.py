"""The result page: a summary of every condition on top with the change from the first one, one
condition's details at a time (``?condition=``), and the team's own per-turn correctness as CSV
(no gold values), only for the team and its organisers and only where every number is theirs to
see. Expected numbers are worked by hand from the tiny references (tests/leaderboard/web.py,
task_data.py)."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from leaderboard.challenges.models import Phase
from leaderboard.challenges.services import add_reference
from leaderboard.submissions.services import run_scoring, submit
from tests.leaderboard.factories import (
    ChallengeFactory,
    ConditionFactory,
    PhaseFactory,
    UserFactory,
    approved_team,
    phase_with_references,
    upload,
    with_second_factor,
)
from tests.leaderboard.task_data import (
    DVD_GOLD,
    DVD_PARTIAL,
    DVD_PERFECT,
    MWZ_GOLD,
    MWZ_PARTIAL,
    MWZ_PERFECT,
    OPTIONS,
    SCHEMA,
)
from tests.leaderboard.web import GOLD, GOLD_BYTES, PREDICTION, log_in

pytestmark = pytest.mark.django_db

KEYS = ("first", "second")


def _other_task_phase(task: str, **phase_kwargs) -> Phase:
    gold, files = (
        (MWZ_GOLD, {"schema": (json.dumps(SCHEMA).encode(), "schema.json")})
        if task == "multiwoz22"
        else (DVD_GOLD, None)
    )
    phase = PhaseFactory(
        challenge=ChallengeFactory(task=task, scorer_options=OPTIONS), **phase_kwargs
    )
    for order, key in enumerate(KEYS):
        condition = ConditionFactory(phase=phase, key=key, label=key.title(), order=order)
        add_reference(condition, json.dumps(gold).encode(), "gold.json", files)
    return phase


def _scored(phase: Phase, files: dict):
    team = approved_team(phase)
    made = submit(team=team, phase=phase, user=team.created_by,
                  files={k: upload(v) for k, v in files.items()}, method_name="run",
                  enqueue=False)  # fmt: skip
    assert run_scoring(made.pk) == "scored"
    return team, made


def _summary(page: str) -> list[list[str]]:
    table = page.split('<table id="condition-summary">')[1].split("</table>")[0]
    body = table.split("<tbody>")[1]
    return [
        [
            re.sub(r"<[^>]+>", "", cell).strip()
            for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, flags=re.S)
        ]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, flags=re.S)
    ]


def test_the_summary_has_every_condition_and_the_change_from_the_first(client):
    # tts: the prediction (JGA 75.00, SER 16.67); human: the gold itself (100.00, 0.00).
    phase = phase_with_references(GOLD_BYTES, keys=("tts", "human"))
    team, made = _scored(phase, {"tts": PREDICTION, "human": GOLD})
    log_in(client, team.created_by)
    page = client.get(reverse("submissions:detail", args=[made.pk])).text
    rows = _summary(page)
    assert [r[0] for r in rows] == ["Tts", "Human"]
    assert rows[0][1].startswith("75.00") and rows[0][2].startswith("16.67")
    assert rows[1][1].startswith("100.00") and rows[1][2].startswith("0.00")
    assert rows[0][-2:] == ["reference", "reference"]
    assert rows[1][-2:] == ["+25.00", "\u221216.67"]
    assert "Change in JGA" in page and "Change in SER (lower is better)" in page


@pytest.mark.parametrize(
    ("task", "partial", "perfect", "primary"),
    [
        # multiwoz22: 2 of 3 turns right on the partial run (JGA 66.67), all on the perfect one
        ("multiwoz22", MWZ_PARTIAL, MWZ_PERFECT, "JGA"),
        # dvd: 2 of 3 turns right (Joint Acc 66.67), then all
        ("dvd", DVD_PARTIAL, DVD_PERFECT, "Joint Acc"),
    ],
)
def test_the_summary_of_the_other_tasks(client, task, partial, perfect, primary):
    phase = _other_task_phase(task)
    team, made = _scored(phase, {"first": partial, "second": perfect})
    log_in(client, team.created_by)
    page = client.get(reverse("submissions:detail", args=[made.pk])).text
    rows = _summary(page)
    assert [r[0] for r in rows] == ["First", "Second"]
    assert rows[0][1].startswith("66.67") and rows[1][1].startswith("100.00")
    assert f"Change in {primary}" in page
    changes = page.split('<table id="condition-summary">')[1].split("</table>")[0]
    assert re.search(r'<td class="num change">\s*\+33\.33\s*</td>', changes)


def test_one_condition_at_a_time_linkable(client):
    phase = phase_with_references(GOLD_BYTES, keys=("tts", "human"))
    team, made = _scored(phase, {"tts": PREDICTION, "human": GOLD})
    log_in(client, team.created_by)
    url = reverse("submissions:detail", args=[made.pk])
    # the markup's layout aside: one space for a run of whitespace
    default = re.sub(r"\s+", " ", client.get(url).text)
    assert 'id="result-tts"' in default and 'id="result-human"' not in default
    assert (
        '<a href="?condition=tts#result-tts" aria-current="page"><strong>Tts</strong></a>'
        in default
    )
    chosen = re.sub(r"\s+", " ", client.get(url, {"condition": "human"}).text)
    assert 'id="result-human"' in chosen and 'id="result-tts"' not in chosen
    assert (
        '<a href="?condition=human#result-human" aria-current="page"><strong>Human</strong></a>'
        in chosen
    )
    # the per-slot table of the one condition shown: no errors on the gold itself
    assert "No dialogue has an error." in chosen
    # an unknown condition shows the first
    assert 'id="result-tts"' in client.get(url, {"condition": "nope"}).text


def test_the_csv_holds_the_teams_per_turn_correctness_and_no_gold_value(client):
    # tts: the prediction misses sng0002's second turn (leaveat 10:30, not 10:15).
    phase = phase_with_references(GOLD_BYTES, keys=("tts", "human"))
    team, made = _scored(phase, {"tts": PREDICTION, "human": GOLD})
    log_in(client, team.created_by)
    page = client.get(reverse("submissions:detail", args=[made.pk])).text
    url = reverse("submissions:correctness", args=[made.pk])
    assert f'href="{url}"' in page
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert f'filename="submission-{made.pk}-correctness.csv"' in response["Content-Disposition"]
    assert response.text.splitlines() == [
        "condition,dialogue_id,turn,correct",
        "tts,mul0001,1,1",
        "tts,mul0001,2,1",
        "tts,sng0002,1,1",
        "tts,sng0002,2,0",
        "human,mul0001,1,1",
        "human,mul0001,2,1",
        "human,sng0002,1,1",
        "human,sng0002,2,1",
    ]
    for value in ("north", "monday", "friday", "10:15", "hotel", "train"):
        assert value not in response.text


@pytest.mark.parametrize("task", ["multiwoz22", "dvd"])
def test_the_csv_of_the_other_tasks_has_a_row_per_user_turn(client, task):
    partial = MWZ_PARTIAL if task == "multiwoz22" else DVD_PARTIAL
    phase = _other_task_phase(task)
    team, made = _scored(phase, {"first": partial, "second": partial})
    log_in(client, team.created_by)
    lines = client.get(reverse("submissions:correctness", args=[made.pk])).text.splitlines()
    # 3 user turns per reference, 2 of them right, in each of the two conditions
    assert len(lines) == 1 + 2 * 3
    assert sum(line.endswith(",1") for line in lines) == 2 * 2


def test_only_the_team_and_its_organisers_get_the_csv(client):
    phase = phase_with_references(GOLD_BYTES, keys=("tts",))
    _, made = _scored(phase, {"tts": PREDICTION})
    url = reverse("submissions:correctness", args=[made.pk])
    assert client.get(url).status_code == 302  # anonymous: log in first
    log_in(client, approved_team(phase).created_by)
    assert client.get(url).status_code == 404  # another team
    log_in(client, UserFactory())
    assert client.get(url).status_code == 404
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    log_in(client, organiser)
    assert client.get(url).status_code == 200


@pytest.mark.parametrize("show_own", [False, True])
def test_hidden_results_stay_hidden_from_the_team_until_the_reveal(client, show_own):
    phase = phase_with_references(
        GOLD_BYTES,
        keys=("tts",),
        results_visibility=Phase.Visibility.HIDDEN,
        split_fraction=0.5,
        show_own_public_score=show_own,
    )
    team, made = _scored(phase, {"tts": PREDICTION})
    log_in(client, team.created_by)
    page = client.get(reverse("submissions:detail", args=[made.pk])).text
    url = reverse("submissions:correctness", args=[made.pk])
    assert url not in page and 'id="condition-summary"' not in page
    assert client.get(url).status_code == 404
    Phase.objects.filter(pk=phase.pk).update(revealed=True)
    assert client.get(url).status_code == 200
