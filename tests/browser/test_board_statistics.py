"""The boards' statistics in Chromium, on a desktop and a phone: the demo's leaderboard shows
each rank with its interval, the scored submissions beside each score and the detectable
difference under each table; the demo's hidden final phase, with three more teams, closed and
revealed, shows its snapshot's shake-up (the table and the chart, drawn). No page scrolls
sideways on a 390 px screen. With ``TRACKBOARD_DOC_IMAGES=1`` on a desktop, the docs'
pictures of a table with its rank intervals and of the shake-up are made again
(``doc_image``)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from leaderboard.challenges.models import Phase
from leaderboard.demo import dstc11
from leaderboard.rankings.snapshots import reveal
from leaderboard.submissions.services import run_scoring, submit
from leaderboard.teams.models import Participation
from scoring.synth import make_gold, make_prediction
from tests.browser.conftest import doc_image, doc_region, draw_charts, screenshot
from tests.leaderboard.boards import built
from tests.leaderboard.factories import TeamFactory

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {"desktop": (1366, 900), "phone": (390, 844)}
#: more teams on the hidden phase (name, error rate): a shake-up of five entries
MORE = (("Team Gamma", 0.1), ("Team Delta", 0.14), ("Team Epsilon", 0.11))


def _fits(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def _revealed_final_phase() -> Phase:
    """The demo's hidden phase with three more teams, closed and revealed."""
    challenge = dstc11.build()
    phase = challenge.phases.get(slug=dstc11.HIDDEN_SLUG)
    gold = make_gold()  # the demo's gold (the same seed)
    for n, (name, rate) in enumerate(MORE):
        team = TeamFactory(name=name)
        Participation.objects.create(
            team=team, challenge=challenge, status=Participation.Status.APPROVED
        )
        files = {
            c.key: SimpleUploadedFile(
                f"{c.key}.json",
                json.dumps(make_prediction(gold, rate + 0.03 * i, seed=50 + n)).encode(),
            )
            for i, c in enumerate(phase.conditions.order_by("order"))
        }
        # the DSTC11 demo asks which ASR system a run used (a declared system fact)
        run = submit(team=team, phase=phase, user=team.created_by, files=files,
                     method_name=f"{name} tracker", enqueue=False,
                     facts={"asr": "Whisper"})  # fmt: skip
        assert run_scoring(run.pk) == "scored"
    now = timezone.now()
    Phase.objects.filter(pk=phase.pk).update(
        opens_at=now - dt.timedelta(days=3), closes_at=now - dt.timedelta(minutes=1)
    )
    phase = built(Phase.objects.select_related("challenge").get(pk=phase.pk))
    reveal(phase, challenge.organisers.get())
    return built(phase)


@pytest.mark.parametrize("size", list(SIZES))
def test_rank_intervals_counts_the_detectable_difference_and_the_shake_up(page, size):
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    test = built(dstc11.build().phases.get(slug="test"))
    page.goto(f"/challenges/{dstc11.SLUG}/{test.slug}/leaderboard/")
    table = page.locator("#table-tts-verbatim")
    first = table.locator("tbody tr").first
    # the rank and its interval are on a phone too, and so is the count of scored submissions
    assert first.locator("td.rank .rank-ci").is_visible()
    assert first.locator(".scored").is_visible()
    assert "scored" in first.locator(".scored").inner_text()
    detectable = page.locator("#detectable-tts-verbatim")
    assert "are not resolvable on this test set" in detectable.inner_text()
    _fits(page, width)
    screenshot(page, f"board-statistics-{size}")
    if size == "desktop":
        # the table's caption, the table and the sentence under it
        doc_region(page, page.locator("#caption-tts-verbatim"), detectable, "rank-intervals")

    phase = _revealed_final_phase()
    page.goto(f"/challenges/{dstc11.SLUG}/{phase.slug}/snapshots/1/")
    draw_charts(page)
    assert page.locator("#chart-shakeup.drawn").count() == 1
    # one line per entry of the final ranking
    assert page.locator("#chart-shakeup .scatterlayer .trace").count() == 5
    assert page.locator("#shakeup-table tbody tr").count() == 4  # overview + 3 conditions
    assert page.locator("#moves-overview tbody tr").count() == 5
    assert "Kendall" in page.locator("#shakeup-table").inner_text()
    _fits(page, width)
    screenshot(page, f"shakeup-{size}")
    if size == "desktop":
        doc_image(page.locator("#shakeup"), "shakeup")
