"""The first visit in a real browser: a new user signs up, opens the link mailed to confirm the
address, creates a team,
registers, uploads three files, and watches the result appear without reloading by hand."""

from __future__ import annotations

import json
import re

import pytest
from django.core import mail

from leaderboard.submissions.models import Submission
from leaderboard.submissions.services import run_scoring
from tests.browser.conftest import screenshot
from tests.leaderboard.boards import built
from tests.leaderboard.factories import KEYS, phase_with_references
from tests.leaderboard.web import GOLD_BYTES, JGA, PREDICTION, SER

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_new_user_watches_their_result_arrive(
    page, live_server, enqueued, account_mail, tmp_path
):
    phase = phase_with_references(GOLD_BYTES, daily_quota=5)
    challenge = phase.challenge
    prediction = tmp_path / "prediction.json"
    prediction.write_text(json.dumps(PREDICTION))

    page.goto("/accounts/signup/")
    page.fill("input[name=username]", "newcomer")
    page.fill("input[name=email]", "newcomer@example.org")
    page.fill("input[name=password1]", "a-long-unusual-passphrase")
    page.fill("input[name=password2]", "a-long-unusual-passphrase")
    page.click("main button[type=submit]")
    page.wait_for_selector("text=Confirm your e-mail address first")
    found = re.search(r"https?://\S+?(/accounts/confirm-email/\S+/)", mail.outbox[-1].body)
    page.goto(found.group(1))
    page.get_by_role("button", name="Confirm the address").click()
    page.wait_for_selector("text=is confirmed")

    page.goto("/teams/new/")
    page.fill("input[name=name]", "Night Owls")
    page.click("main button[type=submit]")
    page.goto(f"/challenges/{challenge.slug}/")
    page.get_by_role("button", name="Register team Night Owls").click()
    page.wait_for_selector("text=Night Owls is registered")

    page.goto(f"/challenges/{challenge.slug}/{phase.slug}/submit/")
    for key in KEYS:
        page.set_input_files(f"input[name=file_{key}]", str(prediction))
    page.fill("input[name=method_name]", "Owl tracker")
    screenshot(page, "submit")
    page.click("main button[type=submit]")
    page.wait_for_url("**/submissions/*/")
    submission = Submission.objects.get()
    assert submission.status == Submission.Status.QUEUED
    assert enqueued == [submission.pk]

    # The team's submissions page and the leaderboard, both open while the workers score the
    # submission and build the board, update themselves: nobody reloads them.
    leaderboard = page.context.new_page()
    leaderboard.goto(f"/challenges/{challenge.slug}/{phase.slug}/leaderboard/")
    assert "Night Owls" not in leaderboard.inner_text("#leaderboard-tables")
    page.goto(f"/challenges/{challenge.slug}/{phase.slug}/submissions/")
    assert "queued" in page.inner_text("main")

    assert run_scoring(submission.pk) == "scored"  # what the worker does
    built(phase)  # and the board's worker, once the scoring has committed

    page.wait_for_selector("main >> text=scored", timeout=15_000)
    # the scores arrive with the status: JGA / SER per condition, as the page renders them
    page.wait_for_selector(f"#my-submissions .scores-cell >> text={JGA} / {SER}", timeout=15_000)
    scores = page.locator("#my-submissions .score-pair").all_inner_texts()
    assert scores == [f"{c.label}: {JGA} / {SER}" for c in phase.conditions.order_by("order")]
    screenshot(page, "my-submissions")
    leaderboard.wait_for_selector("#leaderboard-tables >> text=Night Owls", timeout=15_000)
    board = leaderboard.inner_text("#leaderboard-tables")
    assert JGA in board and SER in board
    screenshot(leaderboard, "leaderboard")
