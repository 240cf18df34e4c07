"""Team names: stored in NFKC with spaces collapsed; invisible, control and bidirectional
control characters refused; two names that read the same (their TR39 confusable skeletons are
equal) cannot both be taken, on creating, renaming and registering for a challenge, and the
refusal names the team the name imitates."""

from __future__ import annotations

import pytest
from django.contrib.admin.sites import site
from django.urls import reverse

from leaderboard.teams import names
from leaderboard.teams.admin import TeamAdminForm
from leaderboard.teams.models import Participation, Team
from leaderboard.teams.services import TeamError, create_team, register, rename_team
from tests.leaderboard.factories import ChallengeFactory, TeamFactory, UserFactory
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db

#: The look-alikes the issue tried against "Team Alpha", each refused naming it.
LOOKALIKES = {
    "greek capital alpha": "Team \u0391lpha",
    "cyrillic letters": "T\u0435\u0430m \u0410lph\u0430",
    "lower case": "team alpha",
    "a zero-width space inside": "Team\u200b Alpha",
    "full-width letters": "\uff34\uff45\uff41\uff4d \uff21\uff4c\uff50\uff48\uff41",
    "a right-to-left override": "\u202eahplA maeT",
    "spaces of other widths": "Team\u3000\u00a0Alpha ",
    "a digit one for an l": "Team A1pha",
}


@pytest.fixture
def alpha():
    return create_team(name="Team Alpha", user=UserFactory())


@pytest.mark.parametrize("name", LOOKALIKES.values(), ids=LOOKALIKES.keys())
def test_each_lookalike_of_an_existing_name_is_refused_naming_it(alpha, name):
    with pytest.raises(TeamError, match="“Team Alpha”"):
        create_team(name=name, user=UserFactory())
    assert Team.objects.count() == 1


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("\u200b\u200b", "U+200B ZERO WIDTH SPACE, an invisible character"),
        ("Team\u2066 Alpha", "U+2066 LEFT-TO-RIGHT ISOLATE: it changes the direction"),
        ("Team\u200f", "U+200F RIGHT-TO-LEFT MARK: it changes the direction"),
        ("Team\x07", "U+0007, a control character"),
        ("Hangul\u3164filler", "U+3164 HANGUL FILLER, an invisible character"),
        ("Variation\ufe0f", "U+FE0F VARIATION SELECTOR-16, an invisible character"),
        ("   ", "A team needs a name."),
        ("---", "at least one letter or digit"),
        ("e\u0301\u0301\u0301\u0301", "at most 3 accents or marks"),
        ("x" * 101, "at most 100 characters"),
    ],
)
def test_a_name_with_invisible_or_control_characters_is_refused_saying_which(name, why):
    with pytest.raises(TeamError) as refused:
        create_team(name=name, user=UserFactory())
    assert why in str(refused.value)
    assert not Team.objects.exists()


def test_names_are_stored_in_nfkc_with_their_case_and_spaces_collapsed():
    team = create_team(
        name="  \uff2e\uff49\uff47\uff48\uff54   Owls\u00a0\u2163 ", user=UserFactory()
    )
    assert team.name == "Night Owls IV"
    assert team.name_key == names.key("night owls iv")
    # letters with accents are letters of their own: not the same name
    assert create_team(name="Équipe", user=UserFactory()).name_key != names.key("Equipe")
    create_team(name="Equipe", user=UserFactory())


def test_the_create_page_shows_the_refusal_on_the_field(client, alpha):
    user = UserFactory()
    log_in(client, user)
    response = client.post(reverse("teams:create"), {"name": "Team \u0391lpha"})
    assert response.status_code == 200
    assert "reads the same as the name of the team “Team Alpha”" in response.text
    assert Team.objects.count() == 1


def test_a_rename_to_a_lookalike_is_refused_and_a_fine_one_shows_everywhere(client, alpha):
    other = create_team(name="Night Owls", user=UserFactory())
    with pytest.raises(TeamError, match="“Team Alpha”"):
        rename_team(team=other, user=other.created_by, name="T\u0435am Alpha")
    with pytest.raises(TeamError, match="Only an owner"):
        rename_team(team=other, user=UserFactory(), name="Day Owls")
    # renaming to a variant of its own name is fine (it is the team itself)
    assert rename_team(team=alpha, user=alpha.created_by, name="TEAM ALPHA").name == "TEAM ALPHA"
    log_in(client, other.created_by)
    url = reverse("teams:rename", args=[other.slug])
    refused = client.post(url, {"name": "team\u200b alpha"}, follow=True)
    assert "U+200B ZERO WIDTH SPACE" in refused.text and "“TEAM ALPHA”" in refused.text
    done = client.post(url, {"name": "Day Owls"}, follow=True)
    assert "The team is now called Day Owls." in done.text
    other.refresh_from_db()
    assert (other.name, other.name_key) == ("Day Owls", "day owls")


def test_registering_beside_a_team_whose_name_reads_the_same_is_refused():
    """Two names stored before the rules (or through the admin's raw rows) can read alike; the
    registration, under the challenge's lock, keeps them off one board."""
    challenge = ChallengeFactory(title="DSTC11")
    first = TeamFactory(name="Team Alpha")
    second = TeamFactory(name="Team \u0391lpha")
    assert first.name_key == second.name_key
    register(team=first, challenge=challenge)
    with pytest.raises(TeamError, match="reads the same as that of the team “Team Alpha”"):
        register(team=second, challenge=challenge)
    assert not Participation.objects.filter(team=second).exists()
    # another challenge is another board
    register(team=second, challenge=ChallengeFactory())
    # an anonymous team is not named to the team that imitates it
    first.anonymous = True
    first.save()
    with pytest.raises(TeamError) as refused:
        register(team=second, challenge=challenge)
    assert "Team Alpha" not in str(refused.value).replace(second.name, "")
    assert "another team registered for it" in str(refused.value)


def test_the_admin_form_applies_the_same_rules(alpha):
    form = TeamAdminForm(data={"name": "team alpha", "slug": "x", "invite_code": "c"})
    assert not form.is_valid()
    assert "“Team Alpha”" in form.errors["name"][0]
    form = TeamAdminForm(data={"name": "Team\u202e", "slug": "x", "invite_code": "c"})
    assert not form.is_valid() and "U+202E" in form.errors["name"][0]
    assert site._registry[Team].form is TeamAdminForm
