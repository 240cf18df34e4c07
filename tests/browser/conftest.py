"""Browser tests: Python playwright driving the system's Chromium (never a downloaded one).

Screenshots (JPEG) of the pages go to ``artifacts/screenshots/`` (kept by CI as test
artefacts). With ``TRACKBOARD_DOC_IMAGES=1`` the tests that make the docs' pictures also write
them, cropped to the part of the page the docs describe, to ``docs/images/`` (PNG; committed;
never rewritten otherwise, so a test run leaves the docs alone).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from leaderboard.demo import dstc11
from tests.conftest import ROOT, require

# The web tests' per-test isolation (storage, cache, queue) and fixtures apply here too.
from tests.leaderboard.conftest import (  # noqa: F401
    _fast_password_hashing,
    _isolated,
    account_mail,
    enqueued,
    published,
)
from tests.leaderboard.factories import totp_code

CHROMIUM = os.environ.get("TRACKBOARD_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
DOC_IMAGES = ROOT / "docs" / "images"

# Playwright's synchronous API runs an event loop in this thread; the ORM calls the tests make
# between browser steps are ordinary synchronous code, which Django must be told to allow.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    require("Chromium", Path(CHROMIUM).exists() or bool(shutil.which(CHROMIUM)), CHROMIUM)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser, live_server) -> Iterator[object]:
    """A fresh browser context on the live server, failing the test on any console error."""
    context = browser.new_context(base_url=live_server.url)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: (errors.append(f"dialog: {d.message}"), d.dismiss()))
    yield page
    context.close()
    assert errors == [], f"browser console errors: {errors}"


def log_in(page, username: str) -> None:
    """allauth's log-in form, with the demo's password; then, for someone with an
    authenticator app (an organiser), the code it shows now. The code changes every 30 s and
    the site takes only the current one, so a code read just before a change can arrive after
    it: a refused code is given once more, as the app shows it then. Fails unless the person
    is signed in."""
    page.goto("/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", dstc11.PASSWORD)
    with page.expect_navigation():  # the form's answer, not the page it was sent from
        page.click("main button[type=submit]")
    asked = reverse("mfa_authenticate")
    for _ in range(2):
        if urlsplit(page.url).path != asked:
            break
        page.fill("input[name=code]", totp_code(get_user_model().objects.get(username=username)))
        with page.expect_navigation():
            page.click("main button[type=submit]")
    assert urlsplit(page.url).path not in (reverse("account_login"), asked), (
        f"{username} is not signed in: {page.url}"
    )


#: The artefacts' pictures: JPEG, legible and cheaper for Chromium to make of a whole page than
#: PNG (test_every_page's pictures took a third less CPU); the docs' pictures below stay PNG.
SCREENSHOT = {"type": "jpeg", "quality": 85, "full_page": True}


def screenshot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.jpg"), **SCREENSHOT)


def doc_image(locator, name: str) -> None:
    """``locator``'s element as the docs' picture ``docs/images/NAME.png``, when
    ``TRACKBOARD_DOC_IMAGES=1`` asks for the pictures to be made again."""
    if os.environ.get("TRACKBOARD_DOC_IMAGES") != "1":
        return
    DOC_IMAGES.mkdir(parents=True, exist_ok=True)
    locator.screenshot(path=str(DOC_IMAGES / f"{name}.png"), animations="disabled")


def doc_region(page, first, last, name: str) -> None:
    """The part of ``page`` from the top of ``first``'s element to the bottom of ``last``'s as
    the docs' picture ``docs/images/NAME.png`` (``doc_image``'s rule)."""
    if os.environ.get("TRACKBOARD_DOC_IMAGES") != "1":
        return
    top, bottom = first.bounding_box(), last.bounding_box()
    left = min(top["x"], bottom["x"])
    right = max(top["x"] + top["width"], bottom["x"] + bottom["width"])
    clip = {"x": left, "y": top["y"], "width": right - left,
            "height": bottom["y"] + bottom["height"] - top["y"]}  # fmt: skip
    DOC_IMAGES.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(DOC_IMAGES / f"{name}.png"), clip=clip, full_page=True,
                    animations="disabled")  # fmt: skip


# Every chart that has a figure, brought into view in turn (js/charts.js draws a chart only
# once it comes near the viewport), each waited for until drawn; then back to the top.
_DRAW_CHARTS = """async () => {
  const holder = document.getElementById("chart-data");
  if (!holder) { return 0; }
  const wanted = Object.keys(JSON.parse(holder.textContent));
  const charts = Array.from(document.querySelectorAll("[data-chart]"))
    .filter((n) => wanted.includes(n.id));
  for (const chart of charts) {
    chart.scrollIntoView({ block: "center" });
    const until = Date.now() + 15000;
    while (!chart.classList.contains("drawn")) {
      if (Date.now() > until) { throw new Error(`chart ${chart.id} was not drawn`); }
      await new Promise((done) => setTimeout(done, 50));
    }
  }
  window.scrollTo(0, 0);
  return document.querySelectorAll("[data-chart].drawn").length;
}"""


def draw_charts(page) -> int:
    """Scroll to every chart of ``page`` that has a figure until it is drawn; how many charts
    are drawn then."""
    return page.evaluate(_DRAW_CHARTS)
