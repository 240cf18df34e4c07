"""Charts load lazily: on a phone, the DSTC11 demo leaderboard's tables are usable without
Plotly; its bundle is fetched, and a chart drawn, only once that chart is scrolled near the
viewport, and each chart's box keeps the height it had before it was drawn (nothing moves).
A refresh of the tables keeps what is drawn drawn and draws nothing more by itself."""

from __future__ import annotations

import pytest

from leaderboard.demo import dstc11
from tests.browser.conftest import draw_charts
from tests.leaderboard.boards import built

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 412, "height": 823}  # a phone's screen, as page-speed audits emulate one
HEIGHTS = """() => Object.fromEntries(Array.from(document.querySelectorAll("[data-chart]"))
  .map((n) => [n.id, n.getBoundingClientRect().height]))"""
# Plotly's drawing inside each drawn chart's box: its height against the box's
OVERFLOW = """() => Array.from(document.querySelectorAll("[data-chart].drawn"))
  .filter((n) => n.querySelector(".main-svg").getBoundingClientRect().height
    > n.getBoundingClientRect().height + 0.5).map((n) => n.id)"""


def test_a_chart_is_drawn_only_once_scrolled_near_and_its_box_does_not_change(browser, live_server):
    phase = built(dstc11.build().phases.get(slug="test"))  # as the demo command builds it
    context = browser.new_context(base_url=live_server.url, viewport=PHONE, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    try:
        page.goto(f"/challenges/{dstc11.SLUG}/{phase.slug}/leaderboard/")
        page.wait_for_load_state("networkidle")
        # the tables are there; no chart, no Plotly
        assert page.locator("#overview-table td.change").count() == 3
        assert page.locator("[data-chart]").count() == 11  # 3 against the declared size
        assert page.locator("[data-chart].drawn, .js-plotly-plot").count() == 0
        assert page.evaluate("typeof window.Plotly") == "undefined"
        assert not [url for url in requested if "plotly" in url]
        before = page.evaluate(HEIGHTS)
        assert all(height >= 150 for height in before.values()), before
        # and they sort without it (the click scrolls the overview into view: its charts near)
        page.get_by_role("button", name="Change (JGA points)").click()
        changes = page.locator("#overview-table td.change").all_inner_texts()
        values = [float(c.replace("\u2212", "-")) for c in changes]
        assert values == sorted(values)

        # the first chart scrolled into view: Plotly loads, that chart is drawn, the last not
        page.locator("#chart-robustness").scroll_into_view_if_needed()
        page.wait_for_selector("#chart-robustness.drawn", timeout=15_000)
        assert [url for url in requested if "plotly-basic" in url]
        assert page.locator("#chart-robustness .scatterlayer .trace").count() == 3
        assert page.locator("#chart-ser-human-paraphrased.drawn").count() == 0
        assert page.evaluate(HEIGHTS) == before

        # a refresh of the tables keeps the drawn chart and draws no other
        page.wait_for_function(
            """() => (document.getElementById("refresh-status").textContent || "")
                .startsWith("Updated at")""",
            timeout=15_000,
        )
        assert page.locator("#chart-robustness.drawn .scatterlayer .trace").count() == 3
        assert page.locator("#chart-ser-human-paraphrased.drawn").count() == 0

        # every chart scrolled to in turn: all drawn, every box as high as it was, none overflows
        assert draw_charts(page) == 11
        assert page.evaluate(HEIGHTS) == before
        assert page.evaluate(OVERFLOW) == []
    finally:
        context.close()
    assert errors == []
