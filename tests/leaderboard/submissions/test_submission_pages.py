"""Who sees a submission: its team and the challenge's organisers; everyone else gets 404.
Also the status JSON, cancelling, and what the result page shows."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from leaderboard.challenges.models import Phase
from leaderboard.submissions.models import Submission
from leaderboard.teams.models import Membership
from tests.leaderboard.factories import (
    UserFactory,
    approved_team,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.web import GOLD_BYTES, JGA, SER, figures, log_in, scored_submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def phase():
    return phase_with_references(GOLD_BYTES)


@pytest.fixture
def team(phase):
    return approved_team(phase)


@pytest.fixture
def teammate(team):
    user = UserFactory()
    Membership.objects.create(team=team, user=user)
    return user


@pytest.fixture
def outsider(phase):
    return approved_team(phase).created_by


@pytest.fixture
def organiser(phase):
    user = UserFactory()
    phase.challenge.organisers.add(with_second_factor(user))
    return user


@pytest.fixture
def scored(team, phase):
    return scored_submission(team, phase)


def _urls(submission):
    return {
        "detail": reverse("submissions:detail", args=[submission.pk]),
        "status": reverse("submissions:status", args=[submission.pk]),
    }


def test_another_teams_member_gets_404_for_the_page_and_the_status_json(client, scored, outsider):
    log_in(client, outsider)
    for url in _urls(scored).values():
        assert client.get(url).status_code == 404


def test_staff_who_do_not_organise_the_challenge_get_404(client, scored):
    staff = with_second_factor(UserFactory(is_staff=True, is_superuser=True))
    log_in(client, staff)
    for url in _urls(scored).values():
        assert client.get(url).status_code == 404


def test_an_organiser_of_the_challenge_may_see_it(client, scored, organiser):
    log_in(client, organiser)
    for url in _urls(scored).values():
        assert client.get(url).status_code == 200


def test_anonymous_users_are_sent_to_log_in(client, scored, phase):
    urls = [
        *_urls(scored).values(),
        reverse("submissions:mine", args=[phase.challenge.slug, phase.slug]),
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("account_login") + "?next=")
    response = client.post(reverse("submissions:cancel", args=[scored.pk]))
    assert response["Location"].startswith(reverse("account_login"))


def test_a_teammate_sees_the_full_result(client, scored, teammate):
    log_in(client, teammate)
    # the markup's layout aside: one space for a run of whitespace, none between two tags
    page = re.sub(r">\s+<", "><", re.sub(r"\s+", " ", client.get(_urls(scored)["detail"]).text))
    # the summary of the three conditions, and the details of the first one
    assert page.count(f'{JGA} <span class="ci"') == 3 + 1
    assert page.count(f'{SER} <span class="ci"') == 3 + 1
    assert "S 1 / D 0 / I 0 of 6" in page  # hand-worked in tests/leaderboard/web.py
    # 5 of the 6 predicted values are right, and 5 of the 6 gold values are found
    for name, value in (("slot_precision", "83.33"), ("slot_recall", "83.33"), ("turns", "4")):
        assert page.count(f'<th scope="row"><code>{name}</code></th><td class="num">{value}<') == 1
    assert "<code>gold-json</code>" in page
    assert "JGA per domain" in page and "Errors per slot" in page
    assert ">train-leaveat</th>" in page
    # train-leaveat: in the reference once, wrong once (S) in 4 turns: accuracy 100 x (1 - 1/4),
    # though none of its one reference value is correct; the page says how it is counted
    cells = "".join(f'<td class="num">{v}</td>' for v in (1, 1, 0, 1, 0, 0, "75.00"))
    assert f">train-leaveat</th>{cells}</tr>" in page
    assert (
        "<strong>Accuracy</strong>: the share of turns in which the slot is not wrong, "
        "100 \u00d7 (1 \u2212 (S + D + I) / turns), over every turn of the condition"
    ) in page
    assert "dstc11|norm:default|" in page
    # The stored prediction files are named, never linked: they have no URL.
    assert "run.json" in page
    assert "/private/" not in page and "submissions/" + "run" not in page


def test_the_status_json_reports_scores_once_scored(client, scored, team):
    log_in(client, team.created_by)
    data = client.get(_urls(scored)["status"]).json()
    assert data["status"] == "scored" and data["final"] is True
    assert data["attempts"] == 1 and data["error"] == ""
    results = data["results"].values()
    assert {f"{r['metrics']['jga']['value']:.2f}" for r in results} == {JGA}
    assert {f"{r['metrics']['ser']['value']:.2f}" for r in results} == {SER}
    for r in results:
        for name in ("jga", "ser"):
            metric = r["metrics"][name]
            assert metric["low"] <= metric["value"] <= metric["high"]
    assert [r["label"] for r in results] == ["Tts-Verbatim", "Human-Verbatim", "Human-Paraphrased"]
    assert data["part"] == "all"


def test_a_queued_submission_polls_and_can_be_cancelled_by_its_team(client, team, phase):
    queued = scored_submission(team, phase, score=False)
    log_in(client, team.created_by)
    mine = client.get(reverse("submissions:mine", args=[phase.challenge.slug, phase.slug])).text
    assert f'data-status-url="{_urls(queued)["status"]}"' in mine
    assert f"Cancel #{queued.pk}" in mine
    data = client.get(_urls(queued)["status"]).json()
    assert data == {**data, "status": "queued", "final": False, "results": {}}

    response = client.post(reverse("submissions:cancel", args=[queued.pk]))
    assert response.status_code == 302
    queued.refresh_from_db()
    assert queued.status == Submission.Status.CANCELLED
    assert client.get(_urls(queued)["status"]).json()["final"] is True


def test_another_team_cannot_cancel_and_gets_404(client, team, phase, outsider):
    queued = scored_submission(team, phase, score=False)
    log_in(client, outsider)
    assert client.post(reverse("submissions:cancel", args=[queued.pk])).status_code == 404
    queued.refresh_from_db()
    assert queued.status == Submission.Status.QUEUED


def test_cancel_needs_a_post(client, team, phase):
    queued = scored_submission(team, phase, score=False)
    log_in(client, team.created_by)
    assert client.get(reverse("submissions:cancel", args=[queued.pk])).status_code == 405


def test_a_failed_submission_shows_its_participant_safe_error(client, team, phase):
    failed = scored_submission(team, phase, score=False)
    Submission.objects.filter(pk=failed.pk).update(status="scoring")
    Submission.fail(failed.pk, "Scoring did not complete after 3 attempt(s) <on our side>.")
    log_in(client, team.created_by)
    page = client.get(_urls(failed)["detail"]).text
    assert "Scoring did not complete after 3 attempt(s) &lt;on our side&gt;." in page
    assert client.get(_urls(failed)["status"]).json()["status"] == "failed"


def test_my_submissions_lists_only_my_teams_with_an_empty_state(client, team, phase, outsider):
    url = reverse("submissions:mine", args=[phase.challenge.slug, phase.slug])
    log_in(client, team.created_by)
    assert "No submissions yet" in client.get(url).text
    mine = scored_submission(team, phase, method="mine")
    other = scored_submission(approved_team(phase), phase, method="theirs")
    page = client.get(url).text
    assert f"#{mine.pk}</a>" in page and f"#{other.pk}</a>" not in page
    assert f"Human-Verbatim: {JGA} / {SER}" in page


def test_a_hidden_phase_hides_scores_from_the_team_but_not_from_organisers(
    client, scored, phase, team, organiser
):
    Phase.objects.filter(pk=phase.pk).update(results_visibility=Phase.Visibility.HIDDEN)
    log_in(client, team.created_by)
    page = client.get(_urls(scored)["detail"]).text
    assert "Results are hidden until the organisers reveal them" in page
    assert JGA not in figures(page)
    assert client.get(_urls(scored)["status"]).json()["results"] == {}
    log_in(client, organiser)
    assert JGA in client.get(_urls(scored)["detail"]).text
