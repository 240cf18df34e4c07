"""A reference version that would change stored scores is stored inactive and its impact shown
before the organiser activates it; a condition the scorer refuses fails alone; failed
submissions can be queued again; a split change re-computes the stored parts in the same save
and the results visibility is locked once submissions are scored.

Numbers by hand from ``tests.leaderboard.web`` (4 turns, one wrong: JGA 75.00) and from the
table of ``construction`` (A1: public 4/4 = 100.00, private 1/7 = 14.29)."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from leaderboard.challenges.admin import PhaseForm
from leaderboard.challenges.models import Phase, Reference
from leaderboard.rankings.compute import compute
from leaderboard.submissions import services
from leaderboard.submissions.models import Result, Submission
from tests.leaderboard.boards import built
from tests.leaderboard.factories import (
    UserFactory,
    approved_team,
    phase_with_references,
    upload,
    with_second_factor,
)
from tests.leaderboard.web import GOLD, GOLD_BYTES, figures, log_in, scored_submission

pytestmark = pytest.mark.django_db

KEY = "tts-verbatim"
#: the gold without dialogue sng0002: every prediction that has it is refused on this condition
LACKING = json.dumps({"mul0001": GOLD["mul0001"]}).encode()


def _jga(board, row) -> float:
    return row.cells[[c.name for c in board.columns].index("jga")][0]


def _organiser(phase):
    user = with_second_factor(UserFactory(is_staff=True, is_superuser=True))
    phase.challenge.organisers.add(with_second_factor(user))
    return user


def _run_all(enqueued) -> list[str]:
    outcomes = [services.run_scoring(pk) for pk in enqueued]
    enqueued.clear()
    return outcomes


def test_a_version_lacking_a_dialogue_shows_its_impact_and_can_be_undone(
    client, enqueued, django_capture_on_commit_callbacks
):
    phase = phase_with_references(GOLD_BYTES)
    runs = [scored_submission(approved_team(phase), phase, f"m{i}") for i in range(2)]
    condition = phase.conditions.get(key=KEY)
    old = condition.references.get(active=True)
    log_in(client, _organiser(phase))

    # The upload is validated and stored, but not made active: nothing is re-queued yet.
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("admin:challenges_reference_add"),
            {"condition": condition.pk, "upload": SimpleUploadedFile("v2.json", LACKING)},
        )
    new = condition.references.get(active=False)
    review = reverse("challenges:review_reference", args=[phase.challenge.slug, new.pk])
    assert response.status_code == 302 and response["Location"] == review
    assert condition.active_reference() == old and enqueued == []
    assert set(Submission.objects.values_list("status", flat=True)) == {"scored"}

    # The review page: both submissions would fail on this condition, naming the dialogue.
    page = client.get(review).text
    assert "2 scored or failed submission(s)" in page
    assert "0 would be scored against this version" in page
    assert "<strong>2 would fail</strong>" in page
    assert page.count("fails: ") == 2 and "sng0002" in page
    assert "not active" in page and "Activate version" in page
    # what it would do is named, and must be agreed to: the box says it
    consequence = "2 submission(s) would fail on this condition and leave its board"
    dialogues = "dialogues change (2 now, 1 in this version)"
    assert consequence in page and dialogues in page
    assert 'name="confirm" value="yes" required' in page

    # Without the box ticked nothing happens, and the page says why.
    with django_capture_on_commit_callbacks(execute=True):
        refused = client.post(review, follow=True)
    assert "Nothing was activated: " + consequence in refused.text
    assert condition.active_reference() == old and enqueued == []

    # Confirmed: the condition fails alone; each submission stays scored on the other two.
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(review, {"confirm": "yes"})
    assert response.status_code == 302
    assert condition.active_reference() == new
    assert sorted(enqueued) == sorted(r.pk for r in runs)
    assert _run_all(enqueued) == ["scored", "scored"]
    for run in runs:
        run.refresh_from_db()
        assert run.status == "scored"
        assert run.error.startswith(f"{condition.label}: ") and "sng0002" in run.error
    assert not Result.objects.filter(condition=condition, current=True).exists()
    board = compute(phase)
    by_key = {b.key: [round(_jga(board, r), 2) for r in b.rows] for b in board.conditions}
    assert by_key[KEY] == []
    assert by_key["human-verbatim"] == [75.0, 75.0]
    # an empty condition ranks nobody: no overview row, never a rank 1 shared without means
    assert board.overview == ()
    phase = built(phase)
    api = client.get(f"/api/v1/phases/{phase.pk}/leaderboard/").json()
    assert api["results"] == [] and api["count"] == 0
    page = client.get(reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug]))
    assert "The overview ranks nobody" in page.text
    assert f"({condition.label} has none)" in page.text
    detail = client.get(reverse("submissions:detail", args=[runs[0].pk])).text
    assert "What went wrong" in detail and "sng0002" in detail
    # the dashboard counts what the reference refuses (the runs are scored, not failed)
    dashboard = client.get(reverse("challenges:organise", args=[phase.challenge.slug])).text
    assert f"{phase.name} / {condition.label}: 2 submissions the active version" in dashboard

    # Going back: the previous version's review says both would be scored again, at 75.00.
    back = reverse("challenges:review_reference", args=[phase.challenge.slug, old.pk])
    page = client.get(back).text
    assert "2 would be scored against this version" in page
    assert "<strong>0 would fail</strong>" in page and figures(page).count("75.00") == 2
    assert "dialogues change (1 now, 2 in this version)" in page  # back to two: confirmed
    with django_capture_on_commit_callbacks(execute=True):
        client.post(back, {"confirm": "yes"})
    assert condition.active_reference() == old
    assert _run_all(enqueued) == ["scored", "scored"]
    for run in runs:
        run.refresh_from_db()
        assert run.status == "scored" and run.error == ""
    board = compute(phase)
    assert [round(_jga(board, r), 2) for r in board.conditions[0].rows] == [75.0, 75.0]
    # History: both versions kept; the Results against the old one are current again.
    assert condition.references.count() == 2
    rows = Result.objects.filter(condition=condition, current=True)
    assert set(rows.values_list("reference_id", flat=True)) == {old.pk}
    assert Reference.objects.filter(pk=new.pk, active=False).exists()


def test_the_first_reference_or_one_without_submissions_is_active_at_once(client, enqueued):
    phase = phase_with_references(GOLD_BYTES)
    condition = phase.conditions.get(key=KEY)
    log_in(client, _organiser(phase))
    response = client.post(
        reverse("admin:challenges_reference_add"),
        {"condition": condition.pk, "upload": SimpleUploadedFile("v2.json", LACKING)},
    )
    assert response.status_code == 302
    assert condition.active_reference().summary["dialogues"] == 1


def test_a_submission_failing_on_its_only_condition_is_failed_and_can_be_queued_again(
    client, django_capture_on_commit_callbacks, enqueued
):
    phase = phase_with_references(GOLD_BYTES, keys=(KEY,))
    team = approved_team(phase)
    run = services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files={KEY: upload(GOLD, "run.json")},
        method_name="one condition",
        enqueue=False,
    )
    condition = phase.conditions.get(key=KEY)
    old = condition.references.get()
    from leaderboard.challenges.services import activate_reference, add_reference

    add_reference(condition, LACKING, "v2.json")
    assert services.run_scoring(run.pk) == "failed"
    run.refresh_from_db()
    assert run.status == "failed" and "sng0002" in run.error and not run.charged

    # Without --include-failed the command leaves it; with it, it is scored on the old gold.
    activate_reference(old)
    call_command("rescore", "--challenge", phase.challenge.slug, "--now")
    run.refresh_from_db()
    assert run.status == "failed"
    call_command("rescore", "--challenge", phase.challenge.slug, "--include-failed", "--now")
    run.refresh_from_db()
    assert run.status == "scored" and run.error == "" and not run.charged
    assert Result.objects.get(submission=run, current=True).primary == 100.0

    # The dashboard's button queues a failed one again.
    Submission.objects.filter(pk=run.pk).update(status="failed")
    organiser = _organiser(phase)
    log_in(client, organiser)
    dashboard = client.get(reverse("challenges:organise", args=[phase.challenge.slug])).text
    assert "Re-queue the 1 failed submission(s)" in dashboard
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("challenges:rescore", args=[phase.challenge.slug, phase.slug]),
            {"failed": "1"},
            follow=True,
        )
    assert "1 failed submission(s) of" in response.text
    assert enqueued == [run.pk]
    assert Submission.objects.get(pk=run.pk).status == "queued"


def test_the_admin_action_queues_failed_submissions_again(client, enqueued):
    phase = phase_with_references(GOLD_BYTES)
    run = scored_submission(approved_team(phase), phase)
    Submission.objects.filter(pk=run.pk).update(status="failed", error="x", charged=False)
    log_in(client, _organiser(phase))
    response = client.post(
        reverse("admin:submissions_submission_changelist"),
        {"action": "rescore_selected", "_selected_action": [run.pk]},
    )
    assert response.status_code == 302
    run.refresh_from_db()
    assert run.status == "queued" and run.error == "" and not run.charged


def _phase_form(phase: Phase, **changes) -> PhaseForm:
    data = {
        "challenge": phase.challenge_id,
        "name": phase.name,
        "slug": phase.slug,
        "order": phase.order,
        "opens_at": phase.opens_at,
        "closes_at": phase.closes_at,
        "results_visibility": phase.results_visibility,
        "split_fraction": phase.split_fraction,
        "split_seed": phase.split_seed,
        "max_final_selections": phase.max_final_selections,
        "show_own_public_score": phase.show_own_public_score,
        **changes,
    }
    return PhaseForm(data=data, instance=phase)


def test_results_visibility_is_locked_once_submissions_are_scored(world):
    form = _phase_form(world.phase, results_visibility="public")
    assert not form.is_valid()
    assert list(form.errors) == ["results_visibility"]
    assert "locked" in form.errors["results_visibility"][0]
    Submission.objects.filter(phase=world.phase).update(status="failed")
    assert _phase_form(world.phase, results_visibility="public").is_valid()


def test_a_split_change_recomputes_every_stored_part_at_once(world):
    a1 = Result.objects.get(submission=world.runs["A1"])
    assert (round(a1.public_primary, 2), round(a1.private_primary, 2)) == (100.0, 14.29)
    Phase.objects.filter(pk=world.phase.pk).update(split_fraction=1.0)
    world.phase.refresh_from_db()
    assert services.recompute_parts(world.phase) == 5
    a1.refresh_from_db()
    assert a1.public_primary is None and a1.part_metrics == {}
    Phase.objects.filter(pk=world.phase.pk).update(split_fraction=0.5)
    world.phase.refresh_from_db()
    services.recompute_parts(world.phase)
    a1.refresh_from_db()
    assert (round(a1.public_primary, 2), round(a1.private_primary, 2)) == (100.0, 14.29)
    # the whole-reference figure is untouched: 5 of 11 turns (100 * 5 / 11 = 45.45)
    assert round(a1.primary, 2) == 45.45
