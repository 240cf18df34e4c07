"""Result pages: per-slot errors that add up to the Result's S/D/I, per-domain JGA, JGA by
turn position, the worst dialogues, and comparing two of a team's submissions."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from leaderboard.demo import dstc11
from leaderboard.submissions.analysis import by_position, compare, worst_dialogues
from leaderboard.submissions.models import Result, Submission
from tests.leaderboard.factories import UserFactory, approved_team, phase_with_references
from tests.leaderboard.web import GOLD, GOLD_BYTES, log_in, prediction_file

pytestmark = pytest.mark.django_db


def _cells(row_html: str) -> list[str]:
    return re.findall(r"<td[^>]*>([^<]*)</td>", row_html)


def test_a_demo_result_page_shows_slot_errors_adding_up_to_the_result(client):
    dstc11.build()
    submission = Submission.objects.get(method_name__startswith="AlphaDST", phase__slug="test")
    log_in(client, submission.team.created_by)
    results = Result.objects.filter(submission=submission).order_by("condition__order")
    assert len(results) == 3
    # One condition at a time: each condition's page has its own totals.
    for result in results:
        url = reverse("submissions:detail", args=[submission.pk])
        # the markup's layout aside: one space for a run of whitespace, none between two tags
        page = re.sub(
            r">\s+<",
            "><",
            re.sub(r"\s+", " ", client.get(url, {"condition": result.condition.key}).text),
        )
        (row,) = re.findall(r'<tr class="totals">(.*?)</tr>', page, flags=re.S)
        n_ref, sub, dele, ins = (int(c) for c in _cells(row) if c.strip())
        details = result.breakdown["details"]
        assert (n_ref, sub, dele, ins) == tuple(details[k] for k in ("n_ref", "sub", "del", "ins"))
        assert f"S {sub} / D {dele} / I {ins} of {n_ref} reference slot values" in page
        for domain, values in details["per_domain"].items():
            assert re.search(
                rf'<th scope="row">{domain}</th><td class="num">{values["turns"]}</td>'
                rf'<td class="num">{values["correct"]}</td><td class="num">{values["jga"]:.2f}',
                page,
            )
        # Per-slot errors are a table (the totals above); domains and positions are charts.
        for chart in ("domains", "positions"):
            assert f'id="chart-{chart}-{result.condition.key}"' in page
    assert "Dialogues with the most errors" in page


def test_jga_by_position_counts_the_scorers_turn_verdicts():
    # a: 3 turns, the last wrong; b: 2 turns, the second wrong
    result = Result(dialogues={"ids": ["a", "b"], "turns": ["110", "10"]})
    # position 1: both right; position 2: a right, b wrong; position 3: only a, wrong
    assert [(p["position"], p["turns"], p["correct"]) for p in by_position(result)] == [
        (1, 2, 2),
        (2, 2, 1),
        (3, 1, 0),
    ]
    assert [p["accuracy"] for p in by_position(result)] == [100.0, 50.0, 0.0]
    # both have one wrong turn; b's is the larger share (1 of 2 against 1 of 3)
    assert [(d["id"], d["turns"], d["wrong"], d["marks"]) for d in worst_dialogues(result)] == [
        ("b", 2, 1, "10"),
        ("a", 3, 1, "110"),
    ]


def _scored(team, phase, prediction, method):
    from leaderboard.submissions import services

    submission = services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files={c.key: prediction_file(prediction) for c in phase.conditions.all()},
        method_name=method,
        enqueue=False,
    )
    assert services.run_scoring(submission.pk) == "scored"
    return submission


def test_comparing_two_submissions_names_the_dialogue_one_gets_right(client):
    """A is the gold; B is the gold with sng0002's second turn wrong: exactly one turn and one
    dialogue separate them, in A's favour."""
    phase = phase_with_references(GOLD_BYTES, keys=("tts-verbatim",))
    team = approved_team(phase)
    wrong = {**GOLD, "sng0002": [GOLD["sng0002"][0], {"train": {"day": "monday"}}]}
    a = _scored(team, phase, GOLD, "perfect")
    b = _scored(team, phase, wrong, "one turn off")
    challenge = phase.challenge
    (condition,) = compare(
        list(a.results.all()),
        list(b.results.all()),
        challenge.scoring_task(),
        challenge.resampling(),
    )
    assert condition.comparable
    assert (condition.turns_only_a, condition.turns_only_b) == (1, 0)
    assert [d["id"] for d in condition.only_a] == ["sng0002"] and condition.only_b == []
    assert condition.tests["JGA"].difference == pytest.approx(25.0)  # 1 of 4 turns
    assert not condition.tests["JGA"].significant  # one dialogue differs: p = 1
    # B drops sng0002's leaveat and says monday for friday: 1 substitution and 1 deletion
    # more of the 6 reference values: SER 33.33 points higher
    assert condition.tests["SER"].difference == pytest.approx(-200 / 6)

    log_in(client, team.created_by)
    url = reverse("submissions:compare", args=[a.pk]) + f"?with={b.pk}"
    page = client.get(url).text
    assert "<code>sng0002</code>" in page and "not significant" in page
    assert '<th scope="row">JGA</th>' in page and '<th scope="row">SER</th>' in page
    detail = client.get(reverse("submissions:detail", args=[a.pk])).text
    assert f'<option value="{b.pk}">' in detail

    # Another team's submission, or an outsider, is simply not found.
    other = _scored(approved_team(phase), phase, GOLD, "theirs")
    assert (
        client.get(reverse("submissions:compare", args=[a.pk]) + f"?with={other.pk}").status_code
        == 404
    )
    log_in(client, UserFactory())
    assert client.get(url).status_code == 404
