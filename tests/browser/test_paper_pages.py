"""The readers' analyses in Chromium on the demo's public phase, on a desktop and a phone:
the pairwise comparison, the tested robustness (its chart drawn) and the errors across teams,
reached from the leaderboard's links; no page scrolls sideways on a 390 px screen (wide
tables scroll in their own box). Screenshots of each go with the others; on a desktop, with
``TRACKBOARD_DOC_IMAGES=1``, the docs' pictures of the paper table links and the three pages
are made again (``doc_image``)."""

from __future__ import annotations

import pytest

from leaderboard.demo import dstc11
from tests.browser.conftest import doc_image, draw_charts, screenshot
from tests.leaderboard.boards import built

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {"desktop": (1366, 900), "phone": (390, 844)}


def _fits(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("size", list(SIZES))
def test_the_pairwise_robustness_and_errors_pages(page, size):
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    phase = built(dstc11.build().phases.get(slug="test"))  # as the demo command builds it
    base = f"/challenges/{dstc11.SLUG}/{phase.slug}/"
    page.goto(base + "leaderboard/")
    links = page.locator("p.exports")
    assert links.get_by_role("link", name="LaTeX").count() == 1
    if size == "desktop":
        doc_image(links, "paper-links")
    page.get_by_role("link", name="compare two entries").click()
    page.wait_for_url("**/pairwise/")
    page.select_option("#pair-a", index=0)
    page.select_option("#pair-b", index=1)
    page.get_by_role("button", name="Compare").click()
    page.wait_for_selector("table.pairwise")
    assert page.locator("table.pairwise tbody tr").count() == 3
    _fits(page, width)
    screenshot(page, f"pairwise-{size}")
    if size == "desktop":
        doc_image(page.locator("main"), "pairwise")

    page.goto(base + "leaderboard/")
    page.get_by_role("link", name="robustness, tested").click()
    page.wait_for_url("**/robustness/")  # loaded: its chart data is in the page
    assert draw_charts(page) == 1
    # one trace per condition after the first
    assert page.locator("#chart-changes .scatterlayer .trace").count() == 2
    assert page.locator("table.robustness tbody tr").count() == 3
    _fits(page, width)
    screenshot(page, f"robustness-{size}")
    if size == "desktop":
        doc_image(page.locator("main"), "robustness")

    page.goto(base + "leaderboard/")
    page.get_by_role("link", name="errors across teams").click()
    page.wait_for_selector("table.slot-rates")
    assert page.locator("table.slot-shares").count() == 3
    assert page.locator("table.slot-rates tbody tr").count() > 1
    _fits(page, width)
    screenshot(page, f"errors-{size}")
    if size == "desktop":
        doc_image(page.locator("table.slot-rates"), "errors")
