"""Guard rails: organisers named in a config file get the organiser role (and the command says
so); organisers manage co-organisers on a page of their challenge; final selections freeze
when the phase closes."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from leaderboard.challenges import roles
from leaderboard.challenges.audit import AuditEntry
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.submissions.services import SelectionError, select_final
from tests.leaderboard.factories import UserFactory, with_second_factor
from tests.leaderboard.organiser.test_create_challenge import _config
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db


def test_organisers_named_in_a_config_file_get_the_organiser_role(tmp_path, capsys, client):
    dan = UserFactory(username="dan")
    assert not dan.is_staff
    call_command("create_challenge", str(_config(tmp_path, {"organisers": ["dan"]})))
    out = capsys.readouterr().out
    assert "organisers: dan" in out
    assert f"each now staff and in the {roles.GROUP} group" in out
    dan.refresh_from_db()
    assert dan.is_staff and dan.groups.filter(name=roles.GROUP).exists()
    challenge = Challenge.objects.get(slug="c")
    assert challenge.is_organised_by(dan)
    (entry,) = AuditEntry.objects.filter(challenge=challenge, action="organiser-added")
    assert entry.subject == "dan" and entry.actor_name == "operator (create_challenge)"
    # and so dan reaches the admin's page of this challenge, once he has a second factor
    log_in(client, dan)
    url = reverse("admin:challenges_challenge_change", args=[challenge.pk])
    assert client.get(url)["Location"].startswith(reverse("mfa_activate_totp"))
    with_second_factor(dan)
    assert client.get(url).status_code == 200


def test_organisers_add_and_remove_co_organisers_on_their_challenges_page(world, client):
    challenge = world.phase.challenge
    url = reverse("challenges:co_organisers", args=[challenge.slug])
    erin = UserFactory(username="erin", email="erin@example.org")
    # not for anyone else: a team's owner, an outsider
    for user in (world.teams["A"].created_by, world.outsider):
        log_in(client, user)
        assert client.get(url).status_code == 404
        assert client.post(url, {"add": "erin"}).status_code == 404
    assert not challenge.is_organised_by(erin)
    log_in(client, world.organiser)
    page = client.get(url).text
    assert world.organiser.username in page and "(you)" in page
    # an unknown account is refused, saying what to do
    refused = client.post(url, {"add": "nobody"}, follow=True).text
    assert "No account has that username or address" in refused
    # so is a member of a team registered for the challenge: an organiser sees hidden results
    rival = world.teams["A"].created_by
    refused = client.post(url, {"add": rival.username}, follow=True).text
    assert f"{rival.username} is in the team {world.teams['A'].name}, registered for" in refused
    assert not challenge.is_organised_by(rival)
    rival.refresh_from_db()
    assert not rival.is_staff
    # by address, any case
    added = client.post(url, {"add": "ERIN@example.org"}, follow=True).text
    assert "erin now organises" in added
    erin.refresh_from_db()
    assert challenge.is_organised_by(erin) and erin.is_staff
    assert erin.groups.filter(name=roles.GROUP).exists()
    # removed again: no longer staff nor in the group (erin organises nothing else)
    client.post(url, {"remove": erin.pk})
    erin.refresh_from_db()
    assert not challenge.is_organised_by(erin) and not erin.is_staff
    assert not erin.groups.filter(name=roles.GROUP).exists()
    actions = list(
        AuditEntry.objects.filter(challenge=challenge, subject="erin")
        .order_by("pk")
        .values_list("action", "actor_name")
    )
    who = world.organiser.username
    assert actions == [("organiser-added", who), ("organiser-removed", who)]
    # the last organiser cannot leave
    last = client.post(url, {"remove": world.organiser.pk}, follow=True).text
    assert "keeps at least one organiser" in last and challenge.is_organised_by(world.organiser)
    assert Group.objects.filter(name=roles.GROUP).exists()


def test_final_selections_freeze_at_the_close(world, client):
    phase = world.phase
    run = world.runs["C2"]
    now = timezone.now()
    Phase.objects.filter(pk=phase.pk).update(
        opens_at=now - dt.timedelta(days=3), closes_at=now - dt.timedelta(seconds=1)
    )
    run.phase.refresh_from_db()
    member = world.teams["C"].created_by
    with pytest.raises(SelectionError, match="final selections froze at the close"):
        select_final(run, member, True)
    run.refresh_from_db()
    assert not run.selected_for_final
    # the page offers no button, and a posted selection is refused with the reason
    log_in(client, member)
    page = client.get(reverse("submissions:detail", args=[run.pk])).text
    assert "Select as final submission" not in page
    response = client.post(
        reverse("submissions:final", args=[run.pk]), {"selected": "1"}, follow=True
    )
    assert "froze at the close" in response.text
    run.refresh_from_db()
    assert not run.selected_for_final
