"""Two challenges, each with a staff organiser in the "Organisers" group: each sees and changes
only its own challenge in every admin page, form choice, dashboard, download and organiser API
endpoint; choices read "challenge / phase / condition"; teams show organisers no invite code
and no members; a reported figure's condition is one of its phase's."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import logging
import zipfile
from dataclasses import dataclass, field

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.forms import ModelChoiceField
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from leaderboard.api.services import create_token, scopes_for
from leaderboard.challenges.models import Challenge, Condition, Phase, Reference
from leaderboard.challenges.roles import CHALLENGE_PATHS
from leaderboard.operations.heartbeat import beat, scheduler_beat
from leaderboard.rankings.models import ReportedResult
from leaderboard.teams.models import Participation
from tests.leaderboard.factories import (
    TeamFactory,
    UserFactory,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.web import GOLD_BYTES, PREDICTION, log_in, scored_submission, tight

pytestmark = pytest.mark.django_db

#: what the "Organisers" group grants, written out here from docs/organisers.md
GRANTED = {
    "view_challenge", "change_challenge",
    "view_phase", "add_phase", "change_phase",
    "view_condition", "add_condition", "change_condition",
    "view_reference", "add_reference", "change_reference",
    "view_phasefile", "add_phasefile", "change_phasefile", "delete_phasefile",
    "view_team",
    "view_participation", "change_participation",
    "view_submission", "change_submission",
    "view_result",
    "view_snapshot",
    "view_reportedresult", "add_reportedresult", "change_reportedresult",
    "delete_reportedresult",
}  # fmt: skip


@dataclass
class Side:
    name: str
    challenge: Challenge
    phase: Phase
    organiser: object
    member: object
    team: object
    submission: object
    reported: ReportedResult
    #: strings that belong to this side only
    markers: list[str] = field(default_factory=list)


def side(name: str) -> Side:
    phase = phase_with_references(
        GOLD_BYTES,
        challenge__slug=f"{name}-challenge",
        challenge__title=f"{name.title()} Challenge",
        results_visibility=Phase.Visibility.HIDDEN,
        split_fraction=0.5,
        split_seed=3,
        show_own_public_score=True,
    )
    organiser = with_second_factor(UserFactory(username=f"organiser-{name}", is_staff=True))
    organiser.groups.add(Group.objects.get(name="Organisers"))
    phase.challenge.organisers.add(with_second_factor(organiser))
    member = UserFactory(username=f"member-{name}")
    team = TeamFactory(name=f"Team {name.title()}", slug=f"team-{name}", created_by=member)
    Participation.objects.create(
        team=team, challenge=phase.challenge, status=Participation.Status.APPROVED
    )
    submission = scored_submission(team, phase, method=f"method-{name}")
    condition = phase.conditions.first()
    reported = ReportedResult.objects.create(
        phase=phase, condition=condition, label=f"paper-{name}", metrics={"jga": 40.0},
        source="a paper",
    )  # fmt: skip
    markers = [f"{name}-challenge", f"{name.title()} Challenge", f"Team {name.title()}",
               f"method-{name}", f"paper-{name}", f"member-{name}"]  # fmt: skip
    return Side(name, phase.challenge, phase, organiser, member, team, submission, reported,
                markers)  # fmt: skip


@pytest.fixture
def two(db) -> tuple[Side, Side]:
    return side("alpha"), side("beta")


def client_of(user) -> Client:
    client = Client()
    log_in(client, user)
    return client


def organiser_models():
    """Every admin-registered model the "Organisers" group may view."""
    group = Group.objects.get(name="Organisers")
    viewable = set(group.permissions.values_list("content_type__app_label", "codename"))
    for model in admin.site._registry:
        label = model._meta.app_label
        if (label, f"view_{model._meta.model_name}") in viewable:
            yield model


def rows_of(model, challenge: Challenge):
    path = CHALLENGE_PATHS[(model._meta.app_label, model._meta.model_name)]
    return model._default_manager.filter(**{path: challenge.pk}).distinct()


def test_the_organisers_group_grants_exactly_what_the_docs_list():
    group = Group.objects.get(name="Organisers")
    assert set(group.permissions.values_list("codename", flat=True)) == GRANTED


def test_every_admin_page_shows_each_organiser_their_own_challenge_only(two):
    alpha, beta = two
    models = list(organiser_models())
    assert {m._meta.model_name for m in models} >= {
        "challenge", "phase", "reference", "team", "participation", "submission", "result",
        "snapshot", "reportedresult",
    }  # fmt: skip
    for me, other in ((alpha, beta), (beta, alpha)):
        client = client_of(me.organiser)
        index = client.get(reverse("admin:index"))
        assert index.status_code == 200
        for model in models:
            info = (model._meta.app_label, model._meta.model_name)
            page = client.get(reverse("admin:{}_{}_changelist".format(*info)))
            assert page.status_code == 200, info
            html = page.content.decode()
            for marker in other.markers:
                assert marker not in html, (info, marker)
            assert set(page.context["cl"].queryset) == set(rows_of(model, me.challenge)), info
            for obj in rows_of(model, other.challenge):
                url = reverse("admin:{}_{}_change".format(*info), args=[obj.pk])
                response = client.get(url)
                # the admin answers "does not exist" by a redirect to its index
                assert response.status_code == 302, (info, obj.pk)
            for obj in rows_of(model, me.challenge):
                url = reverse("admin:{}_{}_change".format(*info), args=[obj.pk])
                response = client.get(url)
                assert response.status_code == 200, (info, obj.pk)
                for marker in other.markers:
                    assert marker not in response.content.decode(), (info, marker)


def test_every_form_choice_is_of_the_organisers_challenge_and_reads_as_its_path(two):
    alpha, beta = two
    client = client_of(alpha.organiser)
    for name in ("challenges_phase_add", "challenges_reference_add", "rankings_reportedresult_add"):
        response = client.get(reverse(f"admin:{name}"))
        assert response.status_code == 200, name
        form = response.context["adminform"].form
        choices = [f for f in form.fields.values() if isinstance(f, ModelChoiceField)]
        assert choices, name
        for f in choices:
            for obj in f.queryset:
                challenge = obj if isinstance(obj, Challenge) else (
                    obj.challenge if isinstance(obj, Phase) else obj.phase.challenge
                )  # fmt: skip
                assert challenge == alpha.challenge, (name, obj)
        for marker in beta.markers:
            assert marker not in response.content.decode(), (name, marker)
    # the three conditions share their labels with the other challenge's: the path tells them
    page = client.get(reverse("admin:challenges_reference_add")).content.decode()
    for condition in alpha.phase.conditions.all():
        assert f">alpha-challenge / Test / {condition.label}</option>" in page


def test_an_organiser_cannot_change_another_challenge_through_the_admin(two, enqueued):
    alpha, beta = two
    client = client_of(alpha.organiser)
    theirs = beta.phase.conditions.first()
    before = Reference.objects.filter(condition=theirs).count()
    gold = SimpleUploadedFile("gold.json", GOLD_BYTES)
    response = client.post(
        reverse("admin:challenges_reference_add"), {"condition": theirs.pk, "upload": gold}
    )
    assert response.status_code == 200  # the form again, with its error
    assert "Select a valid choice" in response.content.decode()
    assert Reference.objects.filter(condition=theirs).count() == before
    assert enqueued == []  # nothing of theirs re-scored

    response = client.post(
        reverse("admin:rankings_reportedresult_add"),
        {"phase": beta.phase.pk, "condition": theirs.pk, "label": "sneaky",
         "metrics": '{"jga": 99}', "source": "x", "shown": "on"},
    )  # fmt: skip
    assert response.status_code == 200
    assert not ReportedResult.objects.filter(label="sneaky").exists()

    url = reverse("admin:challenges_phase_change", args=[beta.phase.pk])
    response = client.post(url, {"name": "Renamed"})
    assert response.status_code == 302
    beta.phase.refresh_from_db()
    assert beta.phase.name == "Test"

    # the approve action on another challenge's registration changes nothing
    theirs_p = Participation.objects.get(challenge=beta.challenge)
    Participation.objects.filter(pk=theirs_p.pk).update(status=Participation.Status.PENDING)
    client.post(
        reverse("admin:teams_participation_changelist"),
        {"action": "approve", "_selected_action": [theirs_p.pk]},
    )
    theirs_p.refresh_from_db()
    assert theirs_p.status == Participation.Status.PENDING


def test_teams_show_organisers_no_invite_code_and_no_members(two):
    alpha, _ = two
    client = client_of(alpha.organiser)
    pages = [
        client.get(reverse("admin:teams_team_changelist")),
        client.get(reverse("admin:teams_team_change", args=[alpha.team.pk])),
    ]
    for page in pages:
        html = page.content.decode()
        assert page.status_code == 200
        assert alpha.team.name in html
        assert alpha.team.invite_code not in html
        assert alpha.member.username not in html
        assert "Membership" not in html
    # no permission to change a team, and none at all on memberships
    assert not alpha.organiser.has_perm("teams.change_team")
    assert not alpha.organiser.has_perm("teams.view_membership")


def test_a_reported_figures_condition_must_be_one_of_its_phases(two):
    alpha, beta = two
    figure = ReportedResult(
        phase=alpha.phase,
        condition=beta.phase.conditions.first(),
        label="mixed",
        metrics={"jga": 10},
        source="s",
    )
    with pytest.raises(ValidationError) as error:
        figure.full_clean()
    assert "condition" in error.value.message_dict
    with pytest.raises(ValidationError):
        figure.save()
    assert not ReportedResult.objects.filter(label="mixed").exists()


def test_the_dashboard_and_downloads_are_each_organisers_own(two):
    alpha, beta = two
    client = client_of(alpha.organiser)
    assert (
        client.get(reverse("challenges:organise", args=[alpha.challenge.slug])).status_code == 200
    )
    theirs = [
        ("get", reverse("challenges:organise", args=[beta.challenge.slug])),
        ("get", reverse("challenges:phase_files", args=[beta.challenge.slug, beta.phase.slug])),
        ("get", reverse("challenges:submission_files",
                        args=[beta.challenge.slug, beta.submission.pk])),
        # another challenge's submission under one's own challenge's address
        ("get", reverse("challenges:submission_files",
                        args=[alpha.challenge.slug, beta.submission.pk])),
        ("post", reverse("challenges:rescore", args=[beta.challenge.slug, beta.phase.slug])),
        ("post", reverse("challenges:decide", args=[
            beta.challenge.slug, Participation.objects.get(challenge=beta.challenge).pk])),
    ]  # fmt: skip
    for method, url in theirs:
        assert getattr(client, method)(url, {"decision": "approve"}).status_code == 404, url
    # a member of a team, not an organiser, gets no download either
    member = client_of(alpha.member)
    url = reverse("challenges:phase_files", args=[alpha.challenge.slug, alpha.phase.slug])
    assert member.get(url).status_code == 404


def test_a_phases_files_download_as_a_zip_with_a_manifest_and_are_logged(two, caplog):
    alpha, _ = two
    client = client_of(alpha.organiser)
    url = reverse("challenges:phase_files", args=[alpha.challenge.slug, alpha.phase.slug])
    with caplog.at_level(logging.INFO, logger="leaderboard.organisers"):
        response = client.get(url)
        body = b"".join(response.streaming_content)
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(body))
    keys = [c.key for c in alpha.phase.conditions.order_by("order")]
    expected = {f"{alpha.submission.pk}/{key}.json" for key in keys} | {"manifest.csv"}
    assert set(archive.namelist()) == expected
    for key in keys:
        assert json.loads(archive.read(f"{alpha.submission.pk}/{key}.json")) == PREDICTION
    manifest = list(csv.DictReader(io.StringIO(archive.read("manifest.csv").decode())))
    assert [(r["submission_id"], r["team"], r["condition"]) for r in manifest] == [
        (str(alpha.submission.pk), "Team Alpha", key) for key in keys
    ]
    logged = [r for r in caplog.records if r.getMessage() == "organiser download"]
    assert len(logged) == 1
    assert logged[0].user == "organiser-alpha"
    assert logged[0].submissions == [alpha.submission.pk]

    one = client.get(
        reverse("challenges:submission_files", args=[alpha.challenge.slug, alpha.submission.pk])
    )
    names = zipfile.ZipFile(io.BytesIO(b"".join(one.streaming_content))).namelist()
    assert sorted(names) == sorted(expected)


def api_client(user) -> APIClient:
    client = APIClient()
    _, key = create_token(user, "organising", scope=scopes_for(user)[-1])
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


ENDPOINTS = ("submissions", "results", "archive", "snapshots", "files")


def test_the_organiser_api_answers_each_organiser_for_their_own_phases_only(two):
    alpha, beta = two
    client = api_client(alpha.organiser)
    participant = api_client(alpha.member)
    for name in ENDPOINTS:
        mine = client.get(reverse(f"api:organise-{name}", args=[alpha.phase.pk]))
        assert mine.status_code == 200, name
        theirs = client.get(reverse(f"api:organise-{name}", args=[beta.phase.pk]))
        assert theirs.status_code == 404, name
        assert theirs.json()["error"]["code"] == "not_found"
        # a participant of the phase, with a token, gets no organiser data
        response = participant.get(reverse(f"api:organise-{name}", args=[alpha.phase.pk]))
        assert response.status_code == 404, name
        anonymous = APIClient().get(reverse(f"api:organise-{name}", args=[alpha.phase.pk]))
        assert anonymous.status_code == 401, name

    # the phase is hidden: participants see no figure, the organiser every one
    submissions = client.get(reverse("api:organise-submissions", args=[alpha.phase.pk])).json()
    assert [s["id"] for s in submissions["submissions"]] == [alpha.submission.pk]
    assert submissions["submissions"][0]["team"]["name"] == "Team Alpha"
    results = client.get(reverse("api:organise-results", args=[alpha.phase.pk])).json()
    assert len(results["results"]) == 3  # one per condition
    # the hand-worked whole-reference JGA of the prediction (tests/leaderboard/web.py)
    assert {round(r["metrics"]["jga"], 2) for r in results["results"]} == {75.0}
    archive = client.get(reverse("api:organise-archive", args=[alpha.phase.pk])).json()
    assert archive["challenge"] == "alpha-challenge" and len(archive["results"]) == 3


def test_the_dashboard_says_whether_a_worker_is_alive(two):
    alpha, _ = two
    client = client_of(alpha.organiser)
    url = reverse("challenges:organise", args=[alpha.challenge.slug])
    page = client.get(url).content.decode()
    assert "no worker has sent a heartbeat" in page
    beat("celery@host-1")
    page = client.get(url).content.decode()
    assert "no worker has sent a heartbeat" not in page
    assert '<dd id="workers">1</dd>' in tight(page)


def test_the_dashboard_says_when_the_scheduler_has_not_run(two, settings):
    settings.REAPER_INTERVAL = 15.0  # stale after a minute
    alpha, _ = two
    client = client_of(alpha.organiser)
    url = reverse("challenges:organise", args=[alpha.challenge.slug])
    assert "The scheduler has never run" in client.get(url).content.decode()
    scheduler_beat(now=timezone.now() - dt.timedelta(minutes=3, seconds=10))
    assert "The scheduler has not run for 3 minutes" in client.get(url).content.decode()
    scheduler_beat()
    page = client.get(url).content.decode()
    assert '<dd id="scheduler">running</dd>' in tight(page)


def test_every_model_with_a_challenge_is_scoped(two):
    """Each model listed as belonging to a challenge is reachable through its path."""
    alpha, _ = two
    for (app, name), _path in CHALLENGE_PATHS.items():
        model = apps.get_model(app, name)
        assert rows_of(model, alpha.challenge).exists() or name in ("snapshot", "phasefile"), name
    assert Condition.objects.filter(phase__challenge=alpha.challenge).count() == 3


def test_add_organiser_makes_a_co_organiser_and_remove_undoes_it(two):
    from django.contrib.auth import get_user_model
    from django.core.management import CommandError, call_command

    alpha, beta = two
    call_command("add_organiser", "alpha-challenge", "newco", email="newco@example.org")
    user = get_user_model().objects.get(username="newco")
    assert user.is_staff and not user.is_superuser and not user.has_usable_password()
    assert list(user.groups.values_list("name", flat=True)) == ["Organisers"]
    assert list(user.organised_challenges.all()) == [alpha.challenge]
    call_command("add_organiser", "beta-challenge", "newco")
    call_command("add_organiser", "alpha-challenge", "newco", remove=True)
    user.refresh_from_db()
    assert list(user.organised_challenges.all()) == [beta.challenge] and user.is_staff
    call_command("add_organiser", "beta-challenge", "newco", remove=True)
    user.refresh_from_db()
    assert not user.is_staff and not user.groups.exists()
    with pytest.raises(CommandError, match="give --email"):
        call_command("add_organiser", "alpha-challenge", "nobody")
    with pytest.raises(CommandError, match="no challenge"):
        call_command("add_organiser", "gamma", "newco")


def test_the_submission_admin_links_its_files_zip(two):
    alpha, _ = two
    client = client_of(alpha.organiser)
    page = client.get(reverse("admin:submissions_submission_change", args=[alpha.submission.pk]))
    url = reverse("challenges:submission_files", args=["alpha-challenge", alpha.submission.pk])
    assert f'href="{url}"' in page.content.decode()
    assert client.get(url).status_code == 200


def test_the_dashboard_refuses_an_approval_that_would_give_a_person_two_approved_teams(two):
    alpha, _ = two
    second = TeamFactory(name="Second Team", slug="second-team")
    second.memberships.create(user=alpha.member)
    pending = Participation.objects.create(team=second, challenge=alpha.challenge)
    client = client_of(alpha.organiser)
    response = client.post(
        reverse("challenges:decide", args=[alpha.challenge.slug, pending.pk]),
        {"decision": "approve"},
        follow=True,
    )
    text = response.content.decode()
    assert "already in another approved team of Alpha Challenge" in text
    assert alpha.member.username not in text
    pending.refresh_from_db()
    assert pending.status == Participation.Status.PENDING


def test_a_registrations_status_changes_by_the_actions_only(two):
    alpha, _ = two
    participation = Participation.objects.get(challenge=alpha.challenge)
    Participation.objects.filter(pk=participation.pk).update(status="pending")
    client = client_of(alpha.organiser)
    url = reverse("admin:teams_participation_change", args=[participation.pk])
    client.post(url, {"status": "approved"})
    participation.refresh_from_db()
    assert participation.status == "pending"
    client.post(
        reverse("admin:teams_participation_changelist"),
        {"action": "approve", "_selected_action": [participation.pk]},
    )
    participation.refresh_from_db()
    assert participation.status == "approved"


def test_a_file_missing_from_storage_is_named_in_the_manifest_and_the_others_still_come(two):
    from leaderboard.submissions.models import SubmissionFile

    alpha, _ = two
    lost = SubmissionFile.objects.filter(submission=alpha.submission).order_by("pk").first()
    lost.file.storage.delete(lost.file.name)
    client = client_of(alpha.organiser)
    url = reverse("challenges:phase_files", args=[alpha.challenge.slug, alpha.phase.slug])
    response = client.get(url)
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    manifest = list(csv.DictReader(io.StringIO(archive.read("manifest.csv").decode())))
    paths = {r["condition"]: r["path"] for r in manifest}
    assert paths[lost.condition.key] == "(missing from storage)"
    assert len(archive.namelist()) == 3  # the two other files and the manifest


def test_the_manifest_quotes_names_a_spreadsheet_would_run_as_formulas(two):
    alpha, _ = two
    type(alpha.team).objects.filter(pk=alpha.team.pk).update(name="=HYPERLINK(1)")
    type(alpha.submission).objects.filter(pk=alpha.submission.pk).update(method_name="@cmd")
    alpha.submission.files.update(original_name="-1+1.json")
    url = reverse("challenges:phase_files", args=[alpha.challenge.slug, alpha.phase.slug])
    response = client_of(alpha.organiser).get(url)
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    manifest = list(csv.DictReader(io.StringIO(archive.read("manifest.csv").decode())))
    assert {(r["team"], r["method"], r["original_name"]) for r in manifest} == {
        ("'=HYPERLINK(1)", "'@cmd", "'-1+1.json")
    }


@pytest.mark.django_db(transaction=True)
def test_the_group_comes_back_after_a_flush_with_its_permissions():
    from django.core.management import call_command

    Group.objects.filter(name="Organisers").delete()
    call_command("flush", interactive=False, verbosity=0)  # sends post_migrate, as migrate does
    group = Group.objects.get(name="Organisers")
    assert set(group.permissions.values_list("codename", flat=True)) == GRANTED
