"""Registration mail (organisers told of a registration waiting for them, one message each,
teams told of the decision, both off with the profile's opt-out), and the wording the
organisers read: the config error's known keys each once, the dashboard's results and final
selections as they are, reported figures by their condition's label, Markdown tables that
print HTML as text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core import mail
from django.urls import reverse

from leaderboard.accounts.models import MailPreference
from leaderboard.analyses.papers import render
from leaderboard.background import MAIL_DECISION, MAIL_PENDING
from leaderboard.challenges.config import ConfigError, check_config, load_config
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.rankings.models import ReportedResult
from leaderboard.rankings.snapshots import reveal
from leaderboard.teams import tasks
from leaderboard.teams.models import Participation
from leaderboard.teams.services import register, set_participation_status
from tests.leaderboard.boards import built, leaderboard
from tests.leaderboard.factories import (
    ChallengeFactory,
    TeamFactory,
    UserFactory,
    with_second_factor,
)
from tests.leaderboard.organiser.conftest import close
from tests.leaderboard.organiser.test_create_challenge import _config
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def registration_mail(published) -> list[tuple[str, int]]:
    """Run the registration mail tasks in this process when they are sent (after the
    commit), as a worker would; records (task name, participation id)."""
    sent: list[tuple[str, int]] = []

    def runner(name: str, task: Any) -> Callable[[int], None]:
        def run(participation_id: int) -> None:
            sent.append((name, participation_id))
            task.apply(args=[participation_id])

        return run

    published.run[MAIL_PENDING] = runner(MAIL_PENDING, tasks.mail_pending)
    published.run[MAIL_DECISION] = runner(MAIL_DECISION, tasks.mail_decision)
    return sent


def test_organisers_are_mailed_a_waiting_registration_and_teams_the_decision(
    registration_mail, published, settings, django_capture_on_commit_callbacks
):
    challenge = ChallengeFactory(registration=Challenge.Registration.APPROVAL, title="DSTC")
    wants, quiet = UserFactory(email="o1@example.org"), UserFactory(email="o2@example.org")
    challenge.organisers.add(with_second_factor(wants), with_second_factor(quiet))
    MailPreference.objects.create(user=quiet, submission_mail=False)  # opted out
    team = TeamFactory(name="Waiting One")
    with django_capture_on_commit_callbacks(execute=True):
        participation = register(team=team, challenge=challenge)
    assert registration_mail == [(MAIL_PENDING, participation.pk)]
    (message,) = mail.outbox
    assert message.to == ["o1@example.org"]
    assert message.subject == "DSTC: Waiting One waits for your approval"
    assert reverse("challenges:organise", args=[challenge.slug]) in message.body
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        set_participation_status(participation, Participation.Status.APPROVED, actor=wants)
    (message,) = mail.outbox
    assert message.to == [team.created_by.email]
    assert message.subject == "Waiting One is approved for DSTC"
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        set_participation_status(participation, Participation.Status.REJECTED, actor=wants)
    (message,) = mail.outbox
    assert message.subject == "Waiting One was not approved for DSTC"
    # every registration mail went to the mail queue, none to the scoring one
    mail_queue = f"{settings.CELERY_TASK_DEFAULT_QUEUE}-mail"
    assert [(name, queue) for name, _, queue in published] == [
        (MAIL_PENDING, mail_queue),
        (MAIL_DECISION, mail_queue),
        (MAIL_DECISION, mail_queue),
    ]
    # an automatic registration waits for nobody: no mail
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        register(team=TeamFactory(), challenge=ChallengeFactory())
    assert mail.outbox == []


def test_each_organiser_gets_their_own_message_about_a_waiting_registration(
    registration_mail, published, settings, django_capture_on_commit_callbacks
):
    challenge = ChallengeFactory(registration=Challenge.Registration.APPROVAL, title="DSTC")
    first, second = UserFactory(email="o1@example.org"), UserFactory(email="o2@example.org")
    challenge.organisers.add(with_second_factor(first), with_second_factor(second))
    with django_capture_on_commit_callbacks(execute=True):
        participation = register(team=TeamFactory(name="Waiting Two"), challenge=challenge)
    assert registration_mail == [(MAIL_PENDING, participation.pk)]
    assert sorted(message.recipients() for message in mail.outbox) == [
        ["o1@example.org"],
        ["o2@example.org"],
    ]
    for message in mail.outbox:
        (own,) = message.recipients()
        other = ({"o1@example.org", "o2@example.org"} - {own}).pop()
        assert other not in message.message().as_string()
        assert message.subject == "DSTC: Waiting Two waits for your approval"
    # one task on the mail queue sent both
    assert [(name, queue) for name, _, queue in published] == [
        (MAIL_PENDING, f"{settings.CELERY_TASK_DEFAULT_QUEUE}-mail")
    ]


def test_the_config_error_lists_each_known_key_once(tmp_path):
    path = _config(tmp_path, {"colour": "red"})
    with pytest.raises(ConfigError) as refused:
        check_config(load_config(path), tmp_path)
    line = next(x for x in str(refused.value).splitlines() if "unknown key(s) 'colour'" in x)
    known = line.split("known keys are: ")[1].split(", ")
    assert known.count("title") == 1 and len(known) == len(set(known))


def test_the_dashboard_says_revealed_and_offers_no_selections_without_a_private_board(
    world, client
):
    close(world.phase)
    reveal(world.phase, world.organiser)
    public = Phase.objects.create(
        challenge=world.phase.challenge, name="Dev", slug="dev", order=0,
        opens_at=world.phase.opens_at, closes_at=world.phase.closes_at,
    )  # fmt: skip
    assert not public.has_private_board
    log_in(client, world.organiser)
    page = client.get(reverse("challenges:organise", args=[world.phase.challenge.slug])).text
    assert "Results revealed" in page and "Results hidden until reveal" not in page
    assert "no final selections" in page
    assert "final selection(s)" not in page and "up to 1 final selection per team" in page


def test_reported_figures_show_their_conditions_label(world, client):
    phase = world.phase
    Phase.objects.filter(pk=phase.pk).update(results_visibility=Phase.Visibility.PUBLIC)
    condition = phase.conditions.get()
    condition.label = "TTS-Verbatim"
    condition.save()
    ReportedResult.objects.create(
        phase=phase, condition=condition, label="Paper", metrics={"jga": 40.0}, shown=True
    )
    Phase.changed(phase.pk)
    built(phase)
    page = client.get(reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug]))
    row = page.text.split('<tr class="reported-row">')[1].split("</tr>")[0]
    assert "<td>TTS-Verbatim</td>" in row and "tts-verbatim" not in row


def test_markdown_tables_print_html_as_text(world):
    team = world.teams["A"]
    team.name = "<b>pipe</b> & co"
    team.save()
    Phase.objects.filter(pk=world.phase.pk).update(results_visibility=Phase.Visibility.PUBLIC)
    Phase.changed(world.phase.pk)
    text = render(leaderboard(built(world.phase), "public"), "markdown")
    assert "&lt;b&gt;pipe&lt;/b&gt; &amp; co" in text and "<b>" not in text
