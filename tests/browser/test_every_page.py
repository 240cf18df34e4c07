"""Every page a reader, a participant and an organiser sees (the embeddable board of each task's
first phase too), on the demo challenges of all three tasks, at a phone's size (390x844, a touch
screen) and a desktop's (1366x900): no page wider than the screen, no console error, no chart
toolbar on the phone, no chart whose tick labels overlap, no "minus zero" anywhere, a meta
description on every page, no serious
or critical accessibility violation (axe-core, from the ``axe-playwright-python`` package, which
carries ``axe.min.js``: nothing is downloaded); the overview shows every condition's primary
metric with its interval and the secondary metric without sideways scrolling on the desktop.
Screenshots (JPEG) of the leaderboard, result and challenge pages at both sizes go to
``artifacts/screenshots/pages/``.

One browser for the session, one context per role and size (logged in once), one page per
context reused for every visit: the test costs a second or two per page and size (mostly
axe's), not a browser start.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from allauth.account.models import EmailAddress, EmailConfirmationHMAC
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth import get_user_model
from django.urls import reverse

from leaderboard.challenges.models import Phase
from leaderboard.demo import dev_reference, dstc11, other_tasks
from leaderboard.submissions.models import Submission
from leaderboard.teams.models import Team
from tests.browser.conftest import SCREENSHOT, SCREENSHOTS, draw_charts, log_in
from tests.leaderboard.boards import built
from tests.leaderboard.factories import with_second_factor

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {"phone": (390, 844), "desktop": (1366, 900)}
#: axe's impacts that fail the test (minor and moderate ones are left to review)
FAILING = ("serious", "critical")
SLUGS = {
    "dstc11": dstc11.SLUG,
    "multiwoz22": other_tasks.MULTIWOZ_SLUG,
    "dvd": other_tasks.DVD_SLUG,
}
#: Plotly's drawing (thousands of SVG shapes on a result page) is left out: its text
#: alternative is the table each chart names, which axe checks; the chart's box, its heading,
#: caption and toolbar are checked with the page.
AXE_CONTEXT = {"exclude": [[".js-plotly-plot .main-svg"]]}
#: axe-core, added to every page each context opens (once per context, not sent per visit),
#: and its run on the page: the violations only
AXE_SCRIPT = Axe().axe_script
AXE_RUN = "(context) => axe.run(context, {resultTypes: ['violations']}).then((r) => r.violations)"
#: page kinds whose screenshots are kept, at both sizes
SHOWN = ("leaderboard", "result", "challenge")

# Tick labels of every chart that overlap their neighbours on the same axis (a phone's charts
# must stay readable), and every "minus zero" written anywhere, charts included.
UNREADABLE = r"""() => {
  const found = [];
  for (const plot of document.querySelectorAll(".js-plotly-plot")) {
    for (const axis of ["xtick", "ytick"]) {
      const boxes = Array.from(plot.querySelectorAll(`.${axis} text`))
        .map((t) => t.getBoundingClientRect()).filter((r) => r.width > 0)
        .sort((a, b) => (axis === "xtick" ? a.left - b.left : a.top - b.top));
      for (let i = 1; i < boxes.length; i++) {
        const a = boxes[i - 1], b = boxes[i];
        if (axis === "xtick" ? a.right > b.left + 1 : a.bottom > b.top + 1) {
          found.push(`${plot.id} ${axis} labels overlap`);
          break;
        }
      }
    }
  }
  const text = document.body.innerText + " " + Array.from(document.querySelectorAll("svg text"))
    .map((t) => t.textContent).join(" ");
  if (/[-\u2212]0\.00(?!\d)/.test(text)) { found.push("a minus zero"); }
  return found;
}"""

# The overview's condition cells: where each is and what it says, and its scrolling box.
OVERVIEW = """() => {
  const table = document.getElementById("overview-table");
  if (!table) { return null; }
  const box = table.parentElement;
  const cells = Array.from(table.querySelectorAll("td.condition")).map((td) => {
    const r = td.getBoundingClientRect();
    const part = (s) => {
      const e = td.querySelector(s);
      return e && e.offsetParent ? e.innerText : "";
    };
    return {left: r.left, right: r.right, ci: part(".ci"), secondary: part(".secondary")};
  });
  return {scroll: box.scrollWidth, client: box.clientWidth, cells: cells,
          conditions: table.querySelectorAll("thead th.condition").length,
          rows: table.tBodies[0].rows.length};
}"""


def _pages() -> dict[str, list[tuple[str, str]]]:
    """(kind, path) of the pages each role sees on the demo. A page that differs between roles
    only in its header's links is visited by one role (axe takes a second or two a page): the
    reader every public page, the participant every page of a team and one challenge and board
    with a team's links, the organiser the dashboards and the hidden board."""
    team = Team.objects.get(name="Team Beta")  # two runs on the dstc11 board: a comparison
    reader: list[tuple[str, str]] = [("challenges", "/")]
    participant: list[tuple[str, str]] = [
        ("teams", "/teams/"),
        ("team", f"/teams/{team.slug}/"),
        ("new-team", "/teams/new/"),
        ("join-team", "/teams/join/"),
        ("profile", "/accounts/profile/"),
        ("addresses", "/accounts/email/"),
        ("password-change", "/accounts/password/change/"),
        ("providers", "/accounts/3rdparty/"),
        # allauth.mfa's overview, and its set-up (which asks for the password again first)
        ("two-factor", "/accounts/2fa/"),
        ("two-factor-setup", "/accounts/2fa/totp/activate/"),
    ]
    # the organiser's overview lists the authenticator app they have
    organiser: list[tuple[str, str]] = [("two-factor-set-up", "/accounts/2fa/")]
    for task, slug in SLUGS.items():
        base = f"/challenges/{slug}/"
        reader.append((f"challenge-{task}", base))
        organiser.append((f"organise-{task}", f"{base}organise/"))
        if task == "dstc11":
            participant.append((f"challenge-{task}", base))
            organiser.append((f"challenge-{task}", base))
        for n, phase in enumerate(Phase.objects.filter(challenge__slug=slug).order_by("order")):
            board = f"{base}{phase.slug}/leaderboard/"
            name = f"{task}-{phase.slug}"
            reader.append((f"leaderboard-{name}", board))
            if n == 0:  # the embeddable board and the withdrawals, once a task
                reader.append((f"embed-{name}", f"{board}embed/"))
                organiser.append(
                    (f"withdrawals-{name}", f"{base}organise/{phase.slug}/withdrawals/")
                )
            if task == "dstc11":
                reader.append((f"snapshots-{name}", f"{base}{phase.slug}/snapshots/"))
            if phase.results_visibility == Phase.Visibility.HIDDEN:
                organiser.append((f"leaderboard-{name}", board))
            elif task == "dstc11":
                participant.append((f"leaderboard-{name}", board))
            participant.append((f"submissions-{name}", f"{base}{phase.slug}/submissions/"))
            if phase.state == "open":
                participant.append((f"submit-{name}", f"{base}{phase.slug}/submit/"))
            runs = list(Submission.objects.filter(phase=phase, team=team).order_by("pk"))
            if runs:
                participant.append((f"result-{name}", f"/submissions/{runs[0].pk}/"))
            if len(runs) > 1:
                compare = f"/submissions/{runs[0].pk}/compare/?with={runs[1].pk}"
                participant.append((f"compare-{name}", compare))
    reader += [
        ("login", "/accounts/login/"),
        ("signup", "/accounts/signup/"),
        ("password-reset", "/accounts/password/reset/"),
        ("password-reset-done", "/accounts/password/reset/done/"),
        ("confirm-address", _confirmation_link()),
    ]
    return {"reader": reader, "participant": participant, "organiser": organiser}


def _confirmation_link() -> str:
    """The page a new account's mailed link opens (its confirm button)."""
    user = get_user_model().objects.create_user("newcomer", "newcomer@example.org", "pw")
    address = EmailAddress.objects.create(user=user, email=user.email, primary=True)
    return reverse("account_confirm_email", args=[EmailConfirmationHMAC(address).key])


@pytest.fixture
def demo_site(browser, live_server) -> Iterator[dict[str, Any]]:
    """The three demo challenges and, per size, a page per role (the reader's anonymous):
    the phone's is a touch screen (coarse pointer, no hover), as a phone's browser reports."""
    dstc11.build()
    # the organiser (a superuser) has an authenticator app, as organiser pages require
    with_second_factor(get_user_model().objects.get(username=dstc11.ORGANISER))
    other_tasks.build()
    dev_reference.ship_all()  # as the demo command publishes them
    for phase in Phase.objects.all():
        built(phase)  # as the demo command builds every board
    contexts = []
    pages: dict[tuple[str, str], Any] = {}
    # one log-in per person, its session shared by both sizes: an authenticator app's code
    # is taken once
    sessions: dict[str, Any] = {}
    for size, (width, height) in SIZES.items():
        for role, username in (
            ("reader", None),
            ("participant", "bob"),
            ("organiser", "organiser"),
        ):
            context = browser.new_context(
                base_url=live_server.url,
                viewport={"width": width, "height": height},
                has_touch=size == "phone",
                storage_state=sessions.get(username or ""),
            )
            context.add_init_script(script=AXE_SCRIPT)
            contexts.append(context)
            page = context.new_page()
            if username and username not in sessions:
                log_in(page, username)
                sessions[username] = context.storage_state()
            pages[size, role] = page
    yield {"pages": pages, "visits": _pages()}
    for context in contexts:
        context.close()


def _visit(page: Any, path: str) -> tuple[list[str], dict[str, Any]]:
    """Load ``path``, wait for its charts, and return what is wrong with it and its overview."""
    console: list[str] = []

    def on_console(message: Any) -> None:
        if message.type == "error":
            console.append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda e: console.append(str(e)))
    try:
        response = page.goto(path)
        # every chart drawn before the page is measured (Plotly sizes itself to its box, and a
        # chart drawn too wide would widen the page); each is drawn once scrolled near
        draw_charts(page)
        problems = []
        if response is None or response.status != 200:
            problems.append(f"answered {response.status if response else 'nothing'}")
        scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if scroll > inner:
            problems.append(f"page is {scroll} px wide in a {inner} px window")
        problems += page.evaluate(UNREADABLE)
        # what search results show under the title: each page says what it holds
        description = page.evaluate(
            "() => (document.querySelector('meta[name=description]') || {}).content || ''"
        )
        if not description.strip() or "{" in description:
            problems.append(f"meta description {description!r}")
        found = page.evaluate(AXE_RUN, AXE_CONTEXT)
        for violation in found:
            if violation["impact"] in FAILING:
                targets = [" ".join(n["target"]) for n in violation["nodes"][:3]]
                problems.append(
                    f"axe {violation['impact']} {violation['id']}: {violation['help']} {targets}"
                )
        overview = page.evaluate(OVERVIEW)
    finally:
        page.remove_listener("console", on_console)
    problems += [f"console: {text}" for text in console]
    return problems, overview


def test_every_page_fits_the_screen_with_no_error_and_no_serious_accessibility_issue(demo_site):
    folder = SCREENSHOTS / "pages"
    shutil.rmtree(folder, ignore_errors=True)  # only this run's pictures
    folder.mkdir(parents=True)
    problems: list[str] = []
    visited = 0
    overviews = 0
    for (size, role), page in demo_site["pages"].items():
        for kind, path in demo_site["visits"][role]:
            found, overview = _visit(page, path)
            visited += 1
            problems += [f"{size} {role} {path}: {p}" for p in found]
            if size == "phone" and page.locator(".modebar").count():
                problems.append(f"{size} {role} {path}: a chart toolbar on a touch screen")
            if kind.startswith(SHOWN):
                page.screenshot(path=str(folder / f"{kind}-{size}.jpg"), **SCREENSHOT)
            if size == "desktop" and overview is not None:
                overviews += 1
                problems += [f"{role} {path}: {p}" for p in _overview_problems(overview)]
    # every page of every role at 2 sizes; the overviews: the reader's public DSTC11 board (the
    # MultiWOZ 2.2 and DVD-DST boards have one condition, whose table is the ranking), the
    # participant's and the organiser's hidden one
    assert visited == 2 * sum(len(v) for v in demo_site["visits"].values()) > 60
    assert overviews == 3
    assert problems == [], "\n".join(problems)
    for task in SLUGS:
        for size in SIZES:
            for kind in SHOWN:
                assert any(folder.glob(f"{kind}-{task}*-{size}.jpg")), (kind, task, size)


def _overview_problems(overview: dict[str, Any]) -> list[str]:
    """At 1366 px: every condition's cell is in the window, with the primary metric's interval
    and the secondary metric showing, and the overview's box does not scroll sideways."""
    problems = []
    if overview["scroll"] > overview["client"]:
        problems.append(
            f"overview scrolls sideways: {overview['scroll']} px in {overview['client']} px"
        )
    if len(overview["cells"]) != overview["conditions"] * overview["rows"]:
        problems.append(f"overview has {len(overview['cells'])} condition cells")
    for cell in overview["cells"]:
        if cell["left"] < 0 or cell["right"] > SIZES["desktop"][0]:
            problems.append(f"overview cell outside the window: {cell}")
        if not (cell["ci"].startswith("[") and cell["secondary"]):
            problems.append(f"overview cell without interval or secondary metric: {cell}")
    return problems
