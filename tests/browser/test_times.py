"""Times in the reader's own zone: the server writes every moment in the site's zone (UTC here),
and the page's script rewrites it in the zone the browser reports, in the same format."""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo

import pytest

from leaderboard.demo import dstc11

pytestmark = pytest.mark.django_db(transaction=True)

FORMAT = re.compile(r"^(\d{1,2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}) (\S+)$")


def _times(browser, live_server, zone: str) -> list[tuple[str, str]]:
    context = browser.new_context(base_url=live_server.url, timezone_id=zone)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"/challenges/{dstc11.SLUG}/")
    page.wait_for_load_state("load")
    found = page.eval_on_selector_all(
        "#phases time[datetime]", "nodes => nodes.map(n => [n.dateTime, n.textContent])"
    )
    context.close()
    assert errors == []
    return found


@pytest.mark.parametrize(("zone", "name"), [("Europe/Berlin", None), ("UTC", "UTC")])
def test_moments_are_written_in_the_readers_zone(browser, live_server, zone, name):
    dstc11.build()
    found = _times(browser, live_server, zone)
    assert len(found) == 4  # two phases, opening and closing
    for iso, text in found:
        expected = dt.datetime.fromisoformat(iso).astimezone(ZoneInfo(zone))
        # Berlin's abbreviation is CET in winter and CEST in summer
        abbreviation = name or ("CEST" if expected.dst() else "CET")
        assert text == expected.strftime(f"%-d %b %Y %H:%M {abbreviation}"), (iso, text)
        assert FORMAT.match(text)
