"""The organiser's new pages in Chromium on a phone (390x844) and a desktop (1366x900): the
reference version's review, the reveal's preview (its charts drawn under the CSP) and the
challenge page with Markdown sections; none is wider than the screen, none logs an error."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from leaderboard.challenges.models import Phase
from leaderboard.challenges.services import add_reference, close_phases
from leaderboard.demo import dstc11
from tests.browser.conftest import draw_charts, log_in, screenshot
from tests.leaderboard.boards import built
from tests.leaderboard.factories import with_second_factor

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {"phone": (390, 844), "desktop": (1366, 900)}


@pytest.mark.parametrize("size", sorted(SIZES))
def test_review_preview_and_pages_fit_the_screen(page, size):
    challenge = dstc11.build()
    challenge.data = "| file | dialogues |\n|---|---|\n| dev.json | 1000 |\n\n" + "word " * 200
    challenge.terms = "By taking part you **agree** to describe your system."
    challenge.save()
    phase = challenge.phases.get(slug="test")
    now = timezone.now()
    Phase.objects.filter(pk=phase.pk).update(
        opens_at=now - dt.timedelta(days=9), closes_at=now - dt.timedelta(minutes=1)
    )
    close_phases()  # as beat records the close
    condition = phase.conditions.first()
    gold = json.loads(condition.active_reference().file.read())
    lacking = {key: gold[key] for key in list(gold)[:1]}
    version = add_reference(condition, json.dumps(lacking).encode(), "v2.json", active=False)
    # the phase closed: its worker builds its boards, the private one (the reveal's) among them
    built(phase)
    page.set_viewport_size(dict(zip(("width", "height"), SIZES[size], strict=True)))
    with_second_factor(get_user_model().objects.get(username=dstc11.ORGANISER))
    log_in(page, dstc11.ORGANISER)
    for name, path, marker in (
        ("review", f"/challenges/{challenge.slug}/organise/references/{version.pk}/", "#impact"),
        ("preview", f"/challenges/{challenge.slug}/{phase.slug}/reveal/", "[data-chart]"),
        ("pages", f"/challenges/{challenge.slug}/", "#page-terms"),
        ("dashboard", f"/challenges/{challenge.slug}/organise/", "#queued"),
    ):
        page.goto(path)
        page.wait_for_selector(marker)
        if name == "preview":
            assert draw_charts(page) >= 1
        screenshot(page, f"organiser-{name}-{size}")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= SIZES[size][0], f"{name} is {width}px wide on the {size}"
