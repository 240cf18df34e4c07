"""Activating a new reference version re-scores every submission of that condition as new
Result rows; the old rows stay with their signatures, no longer current; the leaderboard and
the result page show only current ones. The ``rescore`` command does the same after a scorer
change. Numbers by hand from ``tests.leaderboard.web`` (4 turns, one wrong: JGA 75.00)."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from leaderboard.challenges.services import activate_reference, add_reference
from leaderboard.rankings.compute import compute
from leaderboard.submissions import services
from leaderboard.submissions.models import Result
from tests.leaderboard.factories import approved_team, phase_with_references
from tests.leaderboard.web import GOLD, GOLD_BYTES, log_in, scored_submission

pytestmark = pytest.mark.django_db


def _jga(board, row) -> float:
    return row.cells[[c.name for c in board.columns].index("jga")][0]


def _v2() -> bytes:
    # The turn the prediction gets wrong (sng0002 turn 1: leaveat 10:30) is right in v2, and
    # both mul0001 turns now have area "south", which it gets wrong: 2 of 4 right = 50.00.
    gold = json.loads(GOLD_BYTES)
    gold["sng0002"][1]["train"]["leaveat"] = "10:30"
    for turn in gold["mul0001"]:
        turn["hotel"]["area"] = "south"
    return json.dumps(gold).encode()


def test_activating_a_new_reference_rescores_that_condition_and_keeps_old_rows(
    client, django_capture_on_commit_callbacks, enqueued
):
    phase = phase_with_references(GOLD_BYTES)
    runs = [scored_submission(approved_team(phase), phase, f"m{i}") for i in range(2)]
    assert Result.objects.count() == 6
    condition = phase.conditions.get(key="tts-verbatim")
    old = condition.references.get(active=True)
    with django_capture_on_commit_callbacks(execute=True):
        new = add_reference(condition, _v2(), "v2.json")
        # adding a version re-scores nothing by itself: its callers re-queue the condition
        assert enqueued == []
        services.rescore_all(condition=condition)
    assert sorted(enqueued) == sorted(r.pk for r in runs)
    for pk in enqueued:
        assert services.run_scoring(pk) == "scored"
    # One new row per submission on the new version; the old ones remain, not current.
    rows = Result.objects.filter(condition=condition)
    assert rows.count() == 4
    assert set(rows.filter(current=True).values_list("reference_id", flat=True)) == {new.pk}
    kept = rows.filter(reference=old)
    assert kept.count() == 2 and not kept.filter(current=True).exists()
    assert {r.signature for r in kept}.isdisjoint({r.signature for r in rows.filter(reference=new)})
    # The board: 50.00 on the new version, 75.00 still on the untouched condition.
    board = compute(phase)
    by_key = {b.key: [round(_jga(board, r), 2) for r in b.rows] for b in board.conditions}
    assert by_key == {
        "tts-verbatim": [50.0, 50.0],
        "human-verbatim": [75.0, 75.0],
        "human-paraphrased": [75.0, 75.0],
    }
    # The result page lists every scoring and says which is current: the re-score scored the
    # whole submission again, so each of its three conditions has a superseded row.
    log_in(client, runs[0].team.created_by)
    page = client.get(reverse("submissions:detail", args=[runs[0].pk])).text
    assert page.count("superseded</td>") == 3 and page.count("current</td>") == 3
    assert old.sha256[:12] in page and new.sha256[:12] in page

    # Activating the old version again re-scores again, on new rows against the old version;
    # every earlier row stays, superseded.
    enqueued.clear()
    with django_capture_on_commit_callbacks(execute=True):
        activate_reference(old)
        services.rescore_all(condition=condition)
    assert sorted(enqueued) == sorted(r.pk for r in runs)
    for pk in enqueued:
        assert services.run_scoring(pk) == "scored"
    board = compute(phase)
    assert [round(_jga(board, r), 2) for r in board.conditions[0].rows] == [75.0, 75.0]
    rows = Result.objects.filter(condition=condition)
    assert rows.count() == 6
    current = rows.filter(current=True)
    assert current.count() == 2 and {r.reference_id for r in current} == {old.pk}
    assert {r.scoring for r in current} == {2}


def test_the_rescore_command_writes_new_rows_for_a_new_scorer_signature(monkeypatch):
    phase = phase_with_references(GOLD_BYTES)
    run = scored_submission(approved_team(phase), phase)
    condition = phase.conditions.get(key="tts-verbatim")
    first = Result.objects.get(submission=run, condition=condition)
    # A scorer version change: the challenge's seed is part of the signature.
    challenge = phase.challenge
    challenge.scorer_options = {**challenge.scorer_options, "seed": 999}
    challenge.save()
    call_command("rescore", "--challenge", challenge.slug, "--phase", phase.slug, "--now")
    rows = Result.objects.filter(submission=run, condition=condition).order_by("created_at")
    assert rows.count() == 2
    assert [r.current for r in rows] == [False, True]
    assert rows[0].signature == first.signature and "seed:999" in rows[1].signature
    board = compute(phase)
    assert [round(_jga(board, r), 2) for r in board.conditions[0].rows] == [75.0]
    assert GOLD  # the hand-worked example the numbers come from
