"""A phase's life is one-way: once revealed it cannot re-open (admin form, model save, upload
service, API), late submissions go to a post-challenge phase and never onto the revealed
phase's board or snapshot; the split is locked once results have been shown."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from leaderboard.challenges.models import Phase, PhaseLocked
from leaderboard.challenges.services import PostChallengeError, open_post_challenge
from leaderboard.rankings.serialised import expanded
from leaderboard.rankings.snapshots import reveal
from leaderboard.submissions import services
from leaderboard.submissions.models import Result
from tests.leaderboard.boards import built, leaderboard
from tests.leaderboard.factories import UserFactory, upload, with_second_factor
from tests.leaderboard.organiser import construction as c
from tests.leaderboard.organiser.conftest import KEY, close
from tests.leaderboard.test_admin import _form_data
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db

LATER = "2099-01-01"


@pytest.fixture
def revealed(world, django_capture_on_commit_callbacks):
    close(world.phase)
    reveal(world.phase, world.organiser)
    world.phase.refresh_from_db()
    world.phase = built(world.phase)
    return world


@pytest.fixture
def staff(client):
    client.force_login(with_second_factor(UserFactory(is_staff=True, is_superuser=True)))
    return client


def _phase_form(client, phase, **changes):
    url = reverse("admin:challenges_phase_change", args=[phase.pk])
    data = _form_data(client.get(url))
    data.update(changes)
    return client.post(url, data)


def _api_phase(client, phase) -> dict:
    challenge = client.get(f"/api/v1/challenges/{phase.challenge.slug}/").json()
    (found,) = [p for p in challenge["phases"] if p["id"] == phase.pk]
    return found


def test_the_admin_refuses_to_reopen_a_revealed_phase_saying_why(revealed, staff):
    phase = revealed.phase
    closes = phase.closes_at
    response = _phase_form(staff, phase, closes_at_0=LATER)
    assert response.status_code == 200  # the form again, with its error; nothing saved
    errors = response.context["adminform"].form.errors
    assert "cannot re-open" in errors["closes_at"][0]
    assert "post-challenge phase" in errors["closes_at"][0]
    phase.refresh_from_db()
    assert phase.closes_at == closes and phase.state == "revealed"


def test_a_revealed_phase_cannot_be_reopened_by_any_save(revealed):
    phase = Phase.objects.get(pk=revealed.phase.pk)
    phase.closes_at = timezone.now() + dt.timedelta(days=30)
    with pytest.raises(PhaseLocked) as refused:
        phase.save()
    assert "closes_at" in refused.value.problems
    phase = Phase.objects.get(pk=revealed.phase.pk)
    phase.revealed = False
    with pytest.raises(PhaseLocked) as refused:
        phase.save()
    assert "revealed" in refused.value.problems


def test_a_revealed_phase_takes_no_upload_even_with_its_dates_moved(revealed, client):
    # Even dates moved behind the model's back (a raw UPDATE) leave a revealed phase closed.
    now = timezone.now()
    Phase.objects.filter(pk=revealed.phase.pk).update(closes_at=now + dt.timedelta(days=9))
    phase = Phase.objects.get(pk=revealed.phase.pk)
    team = revealed.teams["A"]
    with pytest.raises(services.SubmissionNotAllowed):
        services.submit(
            team=team, phase=phase, user=team.created_by,
            files={KEY: upload(c.prediction(4, 7))}, method_name="late", enqueue=False,
        )  # fmt: skip
    log_in(client, team.created_by)
    api = client.post(
        f"/api/v1/phases/{phase.pk}/submissions/",
        {"method_name": "late", KEY: upload(c.prediction(4, 7))},
    )
    assert api.status_code == 403 and api.json()["error"]["code"] == "submission_not_allowed"
    assert _api_phase(client, phase)["state"] == "revealed"


def test_late_submissions_go_to_a_post_challenge_phase_not_onto_the_snapshot(
    revealed, django_capture_on_commit_callbacks
):
    phase = revealed.phase
    snapshot = phase.snapshots.get()
    with pytest.raises(PostChallengeError):
        open_post_challenge(Phase.objects.create(
            challenge=phase.challenge, name="other", slug="other",
            opens_at=phase.opens_at, closes_at=phase.closes_at,
        ))  # fmt: skip
    post = open_post_challenge(phase)
    assert post.post_challenge and post.state == "open" and post.results_public
    assert not post.has_split and post.slug == f"{phase.slug}-post"
    assert post.name == f"{phase.name} (post-challenge)"
    (condition,) = post.conditions.all()
    assert condition.key == KEY
    assert condition.active_reference().sha256 == phase.conditions.get().active_reference().sha256
    team = revealed.teams["A"]
    # A perfect late run: 4 of 4 public turns and 7 of 7 private ones.
    late = services.submit(
        team=team, phase=post, user=team.created_by,
        files={KEY: upload(c.prediction(4, 7))}, method_name="late", enqueue=False,
    )  # fmt: skip
    assert services.run_scoring(late.pk) == "scored"
    board = leaderboard(built(post))
    assert [(r.rank, r.method_name) for r in board.conditions[0].rows] == [(1, "late")]
    # The revealed phase: its snapshot is as published, its board never lists the late run.
    snapshot.refresh_from_db()
    names = [r["method_name"] for r in expanded(snapshot.data)["conditions"][0]["rows"]]
    assert "late" not in names and len(names) == 3
    assert "late" not in [r.method_name for r in leaderboard(built(phase)).conditions[0].rows]


def test_the_post_challenge_phase_is_marked_on_its_pages_and_in_the_api(revealed, client):
    post = open_post_challenge(revealed.phase)
    page = client.get(reverse("rankings:leaderboard", args=[post.challenge.slug, post.slug])).text
    assert "post-challenge: submitted after the reveal" in page
    assert _api_phase(client, post)["post_challenge"] is True
    assert _api_phase(client, revealed.phase)["post_challenge"] is False


def test_the_split_is_locked_once_results_have_been_shown(world, staff):
    # The world's teams see their own public part (show_own_public_score): results are shown.
    phase = world.phase
    before = sorted(Result.objects.filter(submission__phase=phase).values_list("public_primary"))
    for field, value in (("split_fraction", "0.6"), ("split_seed", str(c.SEED + 1))):
        response = _phase_form(staff, phase, **{field: value})
        assert response.status_code == 200
        assert "the split is locked" in response.context["adminform"].form.errors[field][0]
    phase.refresh_from_db()
    assert (phase.split_fraction, phase.split_seed) == (c.FRACTION, c.SEED)
    after = sorted(Result.objects.filter(submission__phase=phase).values_list("public_primary"))
    assert after == before


def test_the_split_may_change_while_no_result_has_been_shown(world, staff):
    phase = world.phase
    Phase.objects.filter(pk=phase.pk).update(show_own_public_score=False)
    response = _phase_form(staff, phase, split_seed=str(c.SEED + 1))
    assert response.status_code == 302
    phase.refresh_from_db()
    assert phase.split_seed == c.SEED + 1
