"""An anonymous team is "Anonymous team <alias>", never its primary key; its page is its
members' and organisers' only; a snapshot keeps the labels it was published with, and a team
that turns anonymous after a reveal is shown by its label in that snapshot too, so no page or
export pairs its name with its label."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from leaderboard.challenges.models import Phase
from leaderboard.rankings.serialised import expanded
from leaderboard.rankings.snapshots import reveal
from leaderboard.teams.models import ALIAS_ALPHABET, Team
from leaderboard.teams.services import set_anonymous
from tests.leaderboard.boards import built
from tests.leaderboard.factories import (
    UserFactory,
    approved_team,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.organiser.conftest import close
from tests.leaderboard.web import GOLD_BYTES, log_in, scored_submission

pytestmark = pytest.mark.django_db


def revealed_world(*, anonymous_at_reveal: bool):
    phase = phase_with_references(GOLD_BYTES, results_visibility=Phase.Visibility.HIDDEN)
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    team = approved_team(phase)
    Team.objects.filter(pk=team.pk).update(name="Quiet Lab", anonymous=anonymous_at_reveal)
    team.refresh_from_db()
    run = scored_submission(team, phase, method="quiet-method")
    scored_submission(approved_team(phase), phase, method="loud-method")
    close(phase)
    snapshot = reveal(phase, organiser)
    return phase, team, run, snapshot, organiser


def reader_pages(phase: Phase) -> dict[str, str]:
    args = [phase.challenge.slug, phase.slug]
    urls = [
        reverse("rankings:leaderboard", args=args),
        reverse("rankings:export-json", args=args),
        reverse("rankings:export-csv", args=args),
        reverse("rankings:snapshots", args=args),
        reverse("rankings:snapshot", args=[*args, 1]),
        f"/api/v1/phases/{phase.pk}/leaderboard/",
        f"/api/v1/phases/{phase.pk}/leaderboard/?format=csv",
    ]
    outsider = Client()
    log_in(outsider, UserFactory())
    pages = {}
    for who, client in (("anonymous", Client()), ("outsider", outsider)):
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, (who, url)
            pages[f"{who} {url}"] = response.content.decode()
    return pages


def test_the_label_is_a_random_alias_not_the_primary_key():
    teams = [Team.objects.create(name=f"T{n}", slug=f"t{n}") for n in range(20)]
    aliases = [t.alias for t in teams]
    assert len(set(aliases)) == 20
    assert all(len(a) == 6 and set(a) <= set(ALIAS_ALPHABET) for a in aliases)
    assert all(t.anonymous_label == f"Anonymous team {t.alias}" for t in teams)


def test_a_team_turning_anonymous_after_the_reveal_is_not_named_by_its_snapshot():
    phase, team, _run, snapshot, _ = revealed_world(anonymous_at_reveal=False)
    stored = [r["team_name"] for c in expanded(snapshot.data)["conditions"] for r in c["rows"]]
    assert "Quiet Lab" in stored  # published with its name
    set_anonymous(team=team, user=team.created_by, anonymous=True)
    built(phase)  # as the board's worker builds the boards after the change
    for where, text in reader_pages(phase).items():
        assert "Quiet Lab" not in text, where
        assert team.slug not in text, where
    pages = reader_pages(phase)
    board = next(t for w, t in pages.items() if w.endswith("/snapshots/1/"))
    assert team.anonymous_label in board and "quiet-method" in board
    # and no row of the readers' export carries its id to link it by
    export = (
        Client()
        .get(reverse("rankings:export-json", args=[phase.challenge.slug, phase.slug]))
        .json()
    )
    rows = [r for c in export["final"]["conditions"] for r in c["rows"]]
    rows += [r for c in export["public"]["conditions"] for r in c["rows"]]
    ours = [r for r in rows if r["method_name"] == "quiet-method"]
    assert ours and all(r["team_id"] is None for r in ours)
    assert all(r["team_id"] is not None for r in rows if r["method_name"] == "loud-method")
    # the stored snapshot itself is unchanged: it is immutable
    snapshot.refresh_from_db()
    assert "Quiet Lab" in [
        r["team_name"] for c in expanded(snapshot.data)["conditions"] for r in c["rows"]
    ]


def test_a_snapshot_keeps_the_anonymous_label_it_was_published_with():
    phase, team, _run, snapshot, organiser = revealed_world(anonymous_at_reveal=True)
    names = {r["team_name"] for c in expanded(snapshot.data)["conditions"] for r in c["rows"]}
    assert team.anonymous_label in names and "Quiet Lab" not in names
    for where, text in reader_pages(phase).items():
        assert "Quiet Lab" not in text, where
    # the organisers' archive names the team; the snapshot in it keeps the label
    client = Client()
    log_in(client, organiser)
    archive = client.get(
        reverse("rankings:archive", args=[phase.challenge.slug, phase.slug])
    ).json()
    assert "Quiet Lab" in {r["team"] for r in archive["results"]}
    shown = {r["team_name"] for c in archive["snapshots"][0]["conditions"] for r in c["rows"]}
    assert team.anonymous_label in shown


def test_an_anonymous_teams_page_is_its_members_and_organisers_only():
    _phase, team, _run, _snapshot, organiser = revealed_world(anonymous_at_reveal=True)
    url = reverse("teams:detail", args=[team.slug])
    assert Client().get(url).status_code == 404
    other = Client()
    log_in(other, UserFactory())
    assert other.get(url).status_code == 404
    for user in (team.created_by, organiser):
        client = Client()
        log_in(client, user)
        response = client.get(url)
        assert response.status_code == 200 and "Quiet Lab" in response.content.decode()
    # a team that shows its name keeps a public page
    set_anonymous(team=team, user=team.created_by, anonymous=False)
    assert Client().get(url).status_code == 200
