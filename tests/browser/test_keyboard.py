"""The keyboard reaches every action: pressing Tab through the main pages focuses every visible
link, button, summary and form field (and each table box that scrolls), in the page's order,
with nothing skipped and no trap."""

from __future__ import annotations

from typing import Any

import pytest

from leaderboard.demo import dstc11
from leaderboard.submissions.models import Submission
from tests.browser.conftest import draw_charts, log_in
from tests.leaderboard.boards import built

pytestmark = pytest.mark.django_db(transaction=True)

#: what a keyboard user must be able to reach, as a description that survives the
#: leaderboard's refresh (which swaps its tables for equal new ones)
KEY = """(e) => [e.tagName, e.getAttribute("href") || "", e.id || "",
  (e.getAttribute("aria-label") || e.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 60)
].join("|")"""

REACHABLE = (
    "a[href], button:not([disabled]), summary, input:not([type=hidden]):not([disabled]), "
    "select, textarea, [tabindex='0']"
)

WATCH = f"""() => {{
  window.seenKeys = new Set();
  const key = {KEY};
  document.addEventListener("focusin", (e) => window.seenKeys.add(key(e.target)));
}}"""

MISSED = f"""() => {{
  const key = {KEY};
  const shown = (e) => e.getClientRects().length > 0
    && !e.closest("details:not([open]) > :not(summary)");
  return Array.from(document.querySelectorAll("{REACHABLE}"))
    .filter((e) => shown(e) && !e.closest(".modebar-container"))
    .map(key).filter((k) => !window.seenKeys.has(k));
}}"""


def _tab_through(page: Any, path: str) -> list[str]:
    """The page's reachable elements that Tab never focused (Tab until focus leaves the page)."""
    page.goto(path)
    draw_charts(page)
    page.evaluate(WATCH)
    total = page.evaluate(f'document.querySelectorAll("{REACHABLE}").length')
    for _ in range(total + 20):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement === document.body"):
            break
    return page.evaluate(MISSED)


def test_tab_reaches_every_action_of_the_main_pages(page):
    phase = built(dstc11.build().phases.get(slug="test"))  # as the demo command builds it
    board = f"/challenges/{dstc11.SLUG}/{phase.slug}/leaderboard/"
    assert _tab_through(page, board) == []
    assert _tab_through(page, f"/challenges/{dstc11.SLUG}/") == []
    log_in(page, "bob")
    run = Submission.objects.filter(phase=phase, team__name="Team Beta").first()
    for path in (
        board,
        f"/challenges/{dstc11.SLUG}/",
        f"/challenges/{dstc11.SLUG}/{phase.slug}/submit/",
        f"/challenges/{dstc11.SLUG}/{phase.slug}/submissions/",
        f"/submissions/{run.pk}/",
    ):
        assert _tab_through(page, path) == [], path


def test_the_focus_stays_in_its_place_when_the_tables_refresh(page):
    phase = built(dstc11.build().phases.get(slug="test"))
    page.goto(f"/challenges/{dstc11.SLUG}/{phase.slug}/leaderboard/")
    draw_charts(page)
    # a link inside the tables that is there more than once (each chart of a condition links
    # to its table): the last of them has the focus
    links = page.locator('#leaderboard-tables a[href="#table-human-paraphrased"]')
    last = links.count() - 1
    assert last >= 1
    links.nth(last).focus()
    # the first refresh swaps the fragment in (nothing swapped before it to compare with)
    page.wait_for_function(
        """() => (document.getElementById("refresh-status").textContent || "")
            .startsWith("Updated at")""",
        timeout=15_000,
    )
    focused = page.evaluate(
        """() => {
          const e = document.activeElement;
          const equal = Array.from(
            document.querySelectorAll('#leaderboard-tables a[href="#table-human-paraphrased"]'));
          return [e.tagName, e.isConnected, equal.indexOf(e)];
        }"""
    )
    assert focused == ["A", True, last]
