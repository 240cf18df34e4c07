"""On a phone (390 px): "My submissions" keeps its caption on the screen's width (not squeezed
into a column of single words), the challenge page's Leaderboard / Submit links are on the
screen without sideways scrolling; and the one-time API token's Copy button puts the token on
the clipboard (static/js/copy.js under the site's CSP)."""

from __future__ import annotations

from typing import Any

import pytest

from leaderboard.challenges.models import Phase
from leaderboard.demo import dstc11
from tests.browser.conftest import log_in

pytestmark = pytest.mark.django_db(transaction=True)

WIDTH, HEIGHT = 390, 844


@pytest.fixture
def phone(browser, live_server) -> Any:
    dstc11.build()
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": WIDTH, "height": HEIGHT}, has_touch=True
    )
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    log_in(page, "bob")
    yield page
    context.close()
    assert errors == []


def test_my_submissions_caption_spans_the_table(phone):
    phase = Phase.objects.filter(challenge__slug=dstc11.SLUG).order_by("order").first()
    phone.goto(f"/challenges/{dstc11.SLUG}/{phase.slug}/submissions/")
    caption = phone.locator("#my-submissions caption").bounding_box()
    table = phone.locator("#my-submissions").bounding_box()
    line = phone.evaluate(
        "() => parseFloat(getComputedStyle(document.querySelector('#my-submissions caption'))"
        ".lineHeight)"
    )
    assert caption["width"] >= 0.9 * table["width"]
    # the caption's 23 words fit in a few lines at the phone's width, not one word a line
    assert caption["height"] <= 4 * line


def test_the_challenge_pages_phase_links_are_on_the_screen(phone):
    phone.goto(f"/challenges/{dstc11.SLUG}/")
    links = phone.locator("#phases td.links a")
    assert links.count() >= 2
    names = set()
    for n in range(links.count()):
        box = links.nth(n).bounding_box()
        names.add(links.nth(n).inner_text())
        assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, links.nth(n).inner_text()
    assert {"Leaderboard", "Submit"} <= names
    scroller = phone.evaluate(
        "() => { const s = document.querySelector('#phases').closest('.table-scroll');"
        " return [s.scrollWidth, s.clientWidth]; }"
    )
    assert scroller[0] <= scroller[1]


def test_the_new_tokens_copy_button_copies_it(phone):
    phone.goto("/accounts/profile/")
    phone.fill("input[name=name]", "laptop")
    phone.click("text=Create a token")
    phone.wait_for_load_state()
    token = phone.locator("#new-token").inner_text()
    button = phone.locator("button[data-copy=new-token]")
    assert button.is_visible()
    button.click()
    phone.wait_for_function("() => document.querySelector('[data-copy=new-token]')"
                            ".textContent === 'Copied'")  # fmt: skip
    assert phone.evaluate("() => navigator.clipboard.readText()") == token
