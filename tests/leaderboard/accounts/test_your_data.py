"""A person's data: the export (profile page and API) lists what the site holds about them and
nothing secret or someone else's; deleting the account erases them, and their team's runs stay
ranked."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from io import StringIO

import pytest
from axes.models import AccessAttempt
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from leaderboard.accounts.models import MailPreference
from leaderboard.accounts.services import confirm
from leaderboard.api.models import ApiToken
from leaderboard.api.services import create_token
from leaderboard.challenges import audit
from leaderboard.challenges.audit import AuditEntry
from leaderboard.challenges.models import Phase
from leaderboard.submissions.models import Result, Submission
from leaderboard.teams.models import Membership, Team
from leaderboard.teams.services import join_team, set_anonymous
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.boards import leaderboard
from tests.leaderboard.factories import UserFactory, approved_team, phase_with_references
from tests.leaderboard.web import GOLD_BYTES, PREDICTION, log_in, scored_submission

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-unusual-passphrase"
#: the scored file's hash, as ``scored_submission`` uploads it (``web.prediction_file``)
PREDICTION_SHA256 = hashlib.sha256(json.dumps(PREDICTION).encode()).hexdigest()


def _person(username: str):
    user = UserFactory(username=username, email=f"{username}@example.org")
    user.set_password(PASSWORD)
    user.save()
    return user


@pytest.fixture
def world():
    """Ada owns an approved team with Bo as its other member, and has one scored run."""
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    ada = team.created_by
    ada.username, ada.email = "ada", "Ada.Lovelace@example.org"
    ada.set_password(PASSWORD)
    ada.save()
    confirm(ada)  # the new address, as after its link
    bo = _person("bo")
    join_team(invite_code=team.invite_code, user=bo)
    run = scored_submission(team, phase, "Ada's tracker")
    return phase, team, ada, bo, run


def _export(client) -> dict:
    response = client.post(reverse("accounts:export"))
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith('attachment; filename="trackboard-')
    return json.loads(response.content)


def test_the_export_lists_the_account_teams_runs_tokens_and_mail(client, world):
    phase, team, ada, bo, run = world
    create_token(ada, "laptop")
    MailPreference.objects.create(user=ada, submission_mail=True, announcement_mail=False)
    log_in(client, ada)
    data = _export(client)
    assert data["account"]["username"] == "ada"
    assert data["account"]["email"] == "Ada.Lovelace@example.org"
    [address] = data["account"]["addresses"]
    assert address["email"].lower() == "ada.lovelace@example.org"
    assert address["primary"] and address["confirmed"]
    assert data["account"]["identity_providers"] == []
    [mine] = data["teams"]
    assert (mine["name"], mine["role"], mine["members"]) == (team.name, "owner", 2)
    assert mine["registrations"] == [{"challenge": phase.challenge.slug, "status": "approved"}]
    [submitted] = data["submissions"]
    assert submitted["id"] == run.pk and submitted["method_name"] == "Ada's tracker"
    assert {(f["name"], f["sha256"]) for f in submitted["files"]} == {
        ("run.json", PREDICTION_SHA256)
    }
    assert len(submitted["files"]) == phase.conditions.count()
    assert submitted["results_part"] == "all"
    assert set(submitted["results"]) == set(phase.conditions.values_list("key", flat=True))
    assert [(t["name"], t["scope"]) for t in data["tokens"]] == [("laptop", "submit")]
    expires = dt.datetime.fromisoformat(data["tokens"][0]["expires_at"])
    assert expires - dt.datetime.fromisoformat(data["tokens"][0]["created_at"]) == (
        dt.timedelta(days=90)
    )
    assert data["mail"]["log_kept"] is False
    assert (data["mail"]["submission_mail"], data["mail"]["announcement_mail"]) == (True, False)
    text = json.dumps(data)
    # nothing secret, nothing of a teammate's
    token = ApiToken.objects.get(user=ada)
    for secret in (ada.password, token.digest, token.prefix, team.invite_code, bo.email):
        assert secret not in text


def test_a_hidden_phase_s_scores_are_not_in_the_export(client, world):
    phase, _, ada, _, _ = world
    Phase.objects.filter(pk=phase.pk).update(
        results_visibility=Phase.Visibility.HIDDEN, show_own_public_score=False
    )
    log_in(client, ada)
    [submitted] = _export(client)["submissions"]
    assert submitted["status"] == "scored"
    assert (submitted["results_part"], submitted["results"]) == (None, {})


def test_the_export_is_a_post_for_a_signed_in_user_only(client, world):
    assert client.post(reverse("accounts:export"))["Location"].startswith(reverse("account_login"))
    log_in(client, world[2])
    assert client.get(reverse("accounts:export")).status_code == 405


def test_the_api_gives_the_same_export(world):
    ada = world[2]
    response = token_client(ada).get("/api/v1/me/export/")
    assert response.status_code == 200
    data = response.json()
    assert data["account"]["username"] == "ada"
    assert [s["id"] for s in data["submissions"]] == [world[4].pk]
    assert token_client(None).get("/api/v1/me/export/").status_code in (401, 403)


# --- deletion ------------------------------------------------------------------------------


def _delete(client, **extra):
    return client.post(reverse("accounts:delete"), {"password": PASSWORD, **extra})


def _log_in(username: str) -> bool:
    response = Client().post(reverse("account_login"), {"username": username, "password": PASSWORD})
    return response.status_code == 302


def _database_text() -> str:
    out = StringIO()
    call_command("dumpdata", stdout=out)
    return out.getvalue().lower()


def test_a_deleted_account_cannot_log_in_its_address_is_nowhere_and_its_runs_stay_ranked(
    client, world
):
    phase, team, ada, bo, run = world
    # Bo leaves: Ada is the team's only member, with a scored run
    Membership.objects.filter(user=bo).delete()
    alias = team.alias
    set_anonymous(team=team, user=ada, anonymous=False)  # nothing changes: no entry
    set_anonymous(team=team, user=ada, anonymous=True)  # an audit entry names Ada
    set_anonymous(team=team, user=ada, anonymous=False)
    create_token(ada, "laptop")
    MailPreference.objects.create(user=ada)
    Client().post(reverse("account_login"), {"login": "ada", "password": "wrong"})
    assert AccessAttempt.objects.filter(username="ada").exists()
    LogEntry.objects.create(
        user=bo, content_type=ContentType.objects.get_for_model(get_user_model()),
        object_id=str(ada.pk), object_repr=f"ada <{ada.email}>", action_flag=CHANGE,
        change_message="",
    )  # fmt: skip
    # an operator's admin change of Ada's row: the address in its values
    audit.record(
        None, "admin-changed", actor=bo, subject="user “ada”",
        before={"email": "ada@old.example.org"}, after={"email": ada.email},
    )  # fmt: skip
    other_session = Client()
    log_in(other_session, ada)
    before = [(r.team_name, r.method_name) for r in leaderboard(phase).conditions[0].rows]
    assert before == [(team.name, "Ada's tracker")]
    assert "ada.lovelace@example.org" in _database_text()

    log_in(client, ada)
    response = _delete(client)
    assert response.status_code == 302

    assert not get_user_model().objects.filter(pk=ada.pk).exists()
    assert not AccessAttempt.objects.filter(username="ada").exists()
    assert not _log_in("ada")
    assert other_session.get(reverse("accounts:profile")).status_code == 302
    assert "ada.lovelace@example.org" not in _database_text()
    # the team is kept, under a neutral name, anonymous; its run is still ranked
    team.refresh_from_db()
    assert (team.name, team.anonymous) == (f"Former team {alias}", True)
    assert Submission.objects.get(pk=run.pk).submitter is None
    assert Result.objects.filter(submission=run).count() == phase.conditions.count()
    after = [(r.team_name, r.method_name) for r in leaderboard(phase).conditions[0].rows]
    assert after == [(f"Anonymous team {alias}", "Ada's tracker")]
    # recorded for the operators, under the neutral name; the old entries name no one
    entry = AuditEntry.objects.get(action="account-deleted")
    assert entry.challenge_id is None and entry.actor_name == f"deleted user #{ada.pk}"
    assert entry.after["teams_kept"] == [f"Former team {alias}"]
    named = AuditEntry.objects.filter(action="anonymity").values_list("actor_name", flat=True)
    assert set(named) == {f"deleted user #{ada.pk}"}
    assert LogEntry.objects.get(object_id=str(ada.pk)).object_repr == f"deleted user #{ada.pk}"
    changed = AuditEntry.objects.get(action="admin-changed")
    assert changed.subject == f"user “deleted user #{ada.pk}”"
    assert changed.before == changed.after == {"email": f"deleted user #{ada.pk}"}
    assert "ada@old.example.org" not in _database_text()


def test_the_last_owner_names_who_owns_the_team_next(client, world):
    phase, team, ada, bo, _ = world
    log_in(client, ada)
    page = client.get(reverse("accounts:delete"))
    assert f"heir_{team.pk}" in page.text and "bo" in page.text
    refused = _delete(client)
    assert refused.status_code == 400
    assert get_user_model().objects.filter(pk=ada.pk).exists()
    assert _delete(client, **{f"heir_{team.pk}": str(bo.pk)}).status_code == 302
    team.refresh_from_db()
    assert list(team.memberships.values_list("user__username", "role")) == [("bo", "owner")]
    assert team.name != f"Former team {team.alias}" and not team.anonymous
    assert [r.method_name for r in leaderboard(phase).conditions[0].rows] == ["Ada's tracker"]


def test_a_team_without_runs_and_no_one_else_is_deleted_with_the_account(client):
    ada = _person("ada")
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    Membership.objects.filter(team=team).update(user=ada)
    log_in(client, ada)
    assert _delete(client).status_code == 302
    assert not Team.objects.filter(pk=team.pk).exists()


def test_a_wrong_password_deletes_nothing(client, world):
    ada = world[2]
    log_in(client, ada)
    response = client.post(
        reverse("accounts:delete"), {"password": "wrong", f"heir_{world[1].pk}": world[3].pk}
    )
    assert response.status_code == 400 and "That is not your password." in response.text
    assert get_user_model().objects.filter(pk=ada.pk).exists()


def test_an_organiser_or_operator_cannot_delete_their_own_account(client, world):
    ada = world[2]
    get_user_model().objects.filter(pk=ada.pk).update(is_staff=True)
    log_in(client, ada)
    page = client.get(reverse("accounts:delete"))
    assert "cannot be deleted from here" in page.text and 'name="password"' not in page.text
    response = _delete(client, **{f"heir_{world[1].pk}": str(world[3].pk)})
    assert response.status_code == 400 and "cannot be deleted from here" in response.text
    assert get_user_model().objects.filter(pk=ada.pk).exists()
