"""The main pages in Chromium under the Content-Security-Policy, with hostile team, method and
description texts: no policy violation, no dialog, no console error (the ``page`` fixture),
charts drawn, and every payload shown as text."""

from __future__ import annotations

import pytest

from leaderboard.challenges.models import Phase
from leaderboard.demo import dstc11
from leaderboard.submissions.models import Submission
from leaderboard.teams.models import Team
from tests.browser.conftest import draw_charts, log_in
from tests.leaderboard.boards import built

pytestmark = pytest.mark.django_db(transaction=True)

PAYLOADS = {
    "team": '"><script>alert("team")</script>',
    "method": "</script><svg onload=alert('method')>",
    "description": "javascript:alert(1) <iframe src=javascript:alert(2)> {{7*7}} ${7*7}",
}


def test_main_pages_work_under_the_csp_with_hostile_names(page):
    phase = dstc11.build().phases.get(slug="test")  # the demo has a second, hidden phase
    Team.objects.filter(name="Team Alpha").update(name=PAYLOADS["team"])
    Submission.objects.filter(team__name=PAYLOADS["team"]).update(
        method_name=PAYLOADS["method"], method_description=PAYLOADS["description"]
    )
    # the admin's edits: a change of the phase's boards, then built as the worker builds it
    Phase.changed(phase.pk)
    built(phase)
    violations: list[str] = []
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation',"
        " e => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));"
    )
    page.on("console", lambda m: violations.append(m.text) if "CSP" in m.text else None)

    leaderboard = f"/challenges/{dstc11.SLUG}/{phase.slug}/leaderboard/"
    response = page.goto(leaderboard)
    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert draw_charts(page) >= 1
    text = page.inner_text("main")
    assert PAYLOADS["team"] in text and PAYLOADS["method"] in text

    log_in(page, "alice")
    team = Team.objects.get(name=PAYLOADS["team"])
    submission = Submission.objects.filter(team=team).first()
    for path in (
        "/",
        f"/challenges/{dstc11.SLUG}/",
        f"/teams/{team.slug}/",
        "/teams/",
        f"/challenges/{dstc11.SLUG}/{phase.slug}/submissions/",
        f"/challenges/{dstc11.SLUG}/{phase.slug}/submit/",
        f"/submissions/{submission.pk}/",
        "/accounts/profile/",
        "/api/v1/docs/",
    ):
        page.goto(path)
        page.wait_for_load_state("load")
    page.goto(f"/submissions/{submission.pk}/")
    assert PAYLOADS["method"] in page.inner_text("main")
    assert violations == []
