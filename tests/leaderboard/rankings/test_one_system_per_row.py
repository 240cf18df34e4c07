"""One system per row: a paper table's line is a team's overview submission on every
condition, its method named; where the team's best on a condition is another run, the cell
says so, and the per-condition view (asked for) names each condition's method.

Worked by hand: a public phase without a split, two conditions with the same gold, four
one-turn dialogues whose gold is ``hotel-area=north``; a run gets its first n turns right.

=====  ==========  ===========  ===================  =========================
team   run         Tts-Verbatim Human-Paraphrased    mean (the overview ranks)
=====  ==========  ===========  ===================  =========================
Beta   Beta LM     4/4 = 100    2/4 = 50             75  (Beta's overview run)
Beta   Beta plain  1/4 = 25     3/4 = 75             50
Alpha  Alpha run   3/4 = 75     1/4 = 25             50
=====  ==========  ===========  ===================  =========================

So the system view's Beta line is "Beta LM": 100.00 and 50.00 (marked: Beta's best on
Human-Paraphrased is Beta plain's 75.00); the per-condition view's Beta line is 100.00 and
75.00, naming Beta LM on Tts-Verbatim and Beta plain on Human-Paraphrased.
"""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from leaderboard.submissions import services
from tests.leaderboard.boards import built
from tests.leaderboard.factories import approved_team, phase_with_references, upload

pytestmark = pytest.mark.django_db

KEYS = ("tts-verbatim", "human-paraphrased")
IDS = ("d1", "d2", "d3", "d4")


def _prediction(right: int) -> bytes:
    return json.dumps(
        {d: [{"hotel": {"area": "north" if i < right else "south"}}] for i, d in enumerate(IDS)}
    ).encode()


@pytest.fixture
def board_phase(db):
    gold = json.dumps({d: [{"hotel": {"area": "north"}}] for d in IDS}).encode()
    phase = phase_with_references(gold, keys=KEYS)
    for team_name, runs in (
        ("Beta", (("Beta LM", 4, 2), ("Beta plain", 1, 3))),
        ("Alpha", (("Alpha run", 3, 1),)),
    ):
        team = approved_team(phase)
        team.name = team_name
        team.save()
        for method, tts, hp in runs:
            files = {
                KEYS[0]: upload(_prediction(tts), "tts.json"),
                KEYS[1]: upload(_prediction(hp), "hp.json"),
            }
            run = services.submit(
                team=team, phase=phase, user=team.created_by, files=files,
                method_name=method, enqueue=False,
            )  # fmt: skip
            assert services.run_scoring(run.pk) == "scored"
    return built(phase)  # as the board's worker builds the boards after these runs


def _jga(line: str) -> list[str]:
    """The primary value of each condition in a Markdown line (JGA, then SER, per condition)."""
    cells = [c.strip() for c in line.strip("|").split("|")]
    return [re.match(r"\**([\d.]+)", cells[i]).group(1) for i in (1, 3)]


def _table(client, phase, **params) -> str:
    url = reverse("rankings:table", args=[phase.challenge.slug, phase.slug, "md"])
    response = client.get(url, params)
    assert response.status_code == 200, response.content
    return response.content.decode()


def _line(text: str, start: str) -> str:
    (found,) = [line for line in text.splitlines() if line.startswith(start)]
    return found


def test_a_row_is_one_system_on_every_condition_its_method_named(board_phase, client):
    text = _table(client, board_phase)
    beta = _line(text, "| Beta (Beta LM) |")
    assert _jga(beta) == ["100.00", "50.00"]
    assert "\u2021" in beta.split("|")[4]  # marked: Beta's best there is another run
    assert "\u2021" not in beta.split("|")[2]
    alpha = _line(text, "| Alpha (Alpha run) |")
    assert _jga(alpha) == ["75.00", "25.00"] and "\u2021" not in alpha
    assert "Beta plain" not in text.split("\n\n")[1]  # no line mixes in the other run
    assert "One line per system" in text and "another of its submissions" in text
    # the API gives the same table
    api = client.get(f"/api/v1/phases/{board_phase.pk}/table/", {"as": "markdown"}).json()
    assert api["table"] == text


def test_the_per_condition_view_is_asked_for_and_names_each_method(board_phase, client):
    text = _table(client, board_phase, view="per-condition")
    beta = _line(text, "| Beta |")
    assert _jga(beta) == ["100.00", "75.00"]
    assert "Beta: Beta LM on Tts-Verbatim; Beta plain on Human-Paraphrased." in text
    assert "Alpha:" not in text  # one run on both conditions: nothing to name
    api = client.get(
        f"/api/v1/phases/{board_phase.pk}/table/", {"as": "markdown", "view": "per-condition"}
    ).json()
    assert api["table"] == text


def test_an_unknown_view_is_refused_naming_the_choices(board_phase, client):
    url = reverse("rankings:table", args=[board_phase.challenge.slug, board_phase.slug, "md"])
    response = client.get(url, {"view": "best"})
    assert response.status_code == 400
    assert "view takes system or per-condition" in response.content.decode()
    api = client.get(f"/api/v1/phases/{board_phase.pk}/table/", {"view": "best"})
    assert api.status_code == 400
