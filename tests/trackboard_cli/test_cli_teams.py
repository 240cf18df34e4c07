"""``trackboard team ...`` and ``trackboard register`` against a live server, on the DSTC11
demo: a new participant creates a team, registers it, uploads and reads the result; a second
one joins with the invite code and leaves."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command

from leaderboard.api.services import create_token
from leaderboard.demo import dstc11
from leaderboard.submissions import services
from leaderboard.teams.models import Membership, Participation, Team
from scoring.synth import make_gold
from tests.leaderboard.factories import UserFactory
from tests.trackboard_cli.conftest import trackboard_command

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _as(cli_env, url: str, key: str):
    """The command run with another person's token (from the environment, no saved file)."""

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        env = {**cli_env, "TRACKBOARD_URL": url, "TRACKBOARD_TOKEN": key}
        return subprocess.run(
            [*trackboard_command(), *args], capture_output=True, text=True, env=env,
            timeout=60, stdin=subprocess.DEVNULL,
        )  # fmt: skip

    return run


def test_a_new_participant_takes_part_in_the_demo_from_the_command_line(
    live_server, run_cli, tmp_path: Path, enqueued
):
    call_command("demo", stdout=open(os.devnull, "w"))  # noqa: SIM115
    user = UserFactory()
    _, key = create_token(user, "cli", scope="team")
    assert run_cli("login", "--url", live_server.url, "--token", key).returncode == 0

    created = run_cli("team", "create", "Speech Trackers")
    assert created.returncode == 0, created.stderr
    assert "Created Speech Trackers (slug speech-trackers); you are its owner." in created.stdout
    team = Team.objects.get(slug="speech-trackers")
    assert list(team.memberships.values_list("user", "role")) == [(user.pk, "owner")]

    registered = run_cli("register", dstc11.SLUG, "--team", team.slug)
    assert registered.returncode == 0, registered.stderr
    assert registered.stdout.strip() == (
        f"Speech Trackers is registered for {dstc11.SLUG} (approved: its members may submit)."
    )
    again = run_cli("register", dstc11.SLUG, "--team", team.slug)
    assert again.returncode == 1
    assert "Speech Trackers is already registered for DSTC11" in again.stderr
    state = run_cli("register", dstc11.SLUG, "--state", "--json")
    assert json.loads(state.stdout) == [
        {
            "team": {"id": team.pk, "slug": team.slug, "name": "Speech Trackers"},
            "challenge": dstc11.SLUG,
            "status": "approved",
        }
    ]

    # the demo's reference itself, uploaded for every condition: each scores 100 JGA, 0 SER
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps(make_gold()))
    files = [arg for k, _, _ in dstc11.CONDITIONS for arg in ("--file", f"{k}={gold}")]
    submitted = run_cli(
        "submit", f"{dstc11.SLUG}/test", *files, "--method", "Gold copy", "--fact", "asr=Whisper",
        "--json",
    )  # fmt: skip
    assert submitted.returncode == 0, submitted.stderr
    pk = json.loads(submitted.stdout)["id"]
    assert services.run_scoring(pk) == "scored"
    result = json.loads(run_cli("results", str(pk), "--json").stdout)
    assert result["team"]["slug"] == team.slug
    assert sorted(result["results"]) == sorted(k for k, _, _ in dstc11.CONDITIONS)
    for found in result["results"].values():
        assert found["metrics"]["jga"]["value"] == 100.0
        assert found["metrics"]["ser"]["value"] == 0.0


def test_a_second_person_joins_with_the_code_and_leaves(live_server, run_cli, cli_env, enqueued):
    owner, other = UserFactory(), UserFactory()
    as_owner = _as(cli_env, live_server.url, create_token(owner, "cli", scope="team")[1])
    as_other = _as(cli_env, live_server.url, create_token(other, "cli", scope="team")[1])
    assert as_owner("team", "create", "Slot Fillers").returncode == 0
    team = Team.objects.get(name="Slot Fillers")

    invite = as_owner("team", "invite", team.slug, "--json")
    code = json.loads(invite.stdout)["invite_code"]
    assert code == team.invite_code
    refused = as_other("team", "invite", team.slug)
    assert refused.returncode == 1
    assert f"You are not a member of a team '{team.slug}'." in refused.stderr

    wrong = as_other("team", "join", team.slug, "not-the-code")
    assert wrong.returncode == 1 and "This invite code is not valid." in wrong.stderr
    joined = as_other("team", "join", team.slug, code)
    assert joined.returncode == 0, joined.stderr
    assert joined.stdout.strip() == (
        "You are in Slot Fillers (member); not registered for any challenge."
    )
    shown = json.loads(as_other("team", "show", "--json").stdout)
    assert [(t["slug"], t["role"]) for t in shown] == [(team.slug, "member")]
    table = as_owner("team", "show").stdout.splitlines()
    assert table[0].split() == ["TEAM", "NAME", "ROLE", "REGISTERED", "FOR"]
    assert table[1].split()[:4] == [team.slug, "Slot", "Fillers", "owner"]

    stays = as_owner("team", "leave", team.slug)
    assert stays.returncode == 1
    assert "Make another member an owner before leaving." in stays.stderr
    left = as_other("team", "leave", team.slug)
    assert left.returncode == 0 and left.stdout.strip() == f"You left {team.slug}."
    assert list(Membership.objects.filter(team=team).values_list("user", flat=True)) == [owner.pk]
    assert not Participation.objects.filter(team=team).exists()


def test_a_code_an_older_site_made_with_a_leading_dash_joins_as_the_invite_prints_it(
    live_server, cli_env
):
    owner, other = UserFactory(), UserFactory()
    as_owner = _as(cli_env, live_server.url, create_token(owner, "cli", scope="team")[1])
    as_other = _as(cli_env, live_server.url, create_token(other, "cli", scope="team")[1])
    assert as_owner("team", "create", "Dash Codes").returncode == 0
    team = Team.objects.get(name="Dash Codes")
    Team.objects.filter(pk=team.pk).update(invite_code="-Xpyh5TVVu9Sii3E")  # token_urlsafe's kind
    printed = as_owner("team", "invite", team.slug).stdout.splitlines()[-1]
    command = printed.removeprefix("Or, from the command line: ")
    assert command == f"trackboard team join {team.slug} -- -Xpyh5TVVu9Sii3E"
    joined = as_other(*command.split()[1:])
    assert joined.returncode == 0, joined.stderr
    assert Membership.objects.filter(team=team, user=other).exists()


def test_register_needs_a_team_or_the_state_flag(run_cli):
    found = run_cli("register", "some-challenge")
    assert found.returncode == 2
    assert "name the team to register with --team SLUG (or pass --state)" in found.stderr
