"""Charts in Chromium: the demo leaderboard and a result page draw their charts without
console errors, with one bar per team and one line per team, and a team named like markup is
shown as text everywhere, charts included (the ``page`` fixture fails on any dialog)."""

from __future__ import annotations

import pytest

from leaderboard.challenges.models import Phase
from leaderboard.demo import dstc11
from leaderboard.submissions.models import Submission
from leaderboard.teams.models import Team
from tests.browser.conftest import draw_charts, log_in, screenshot
from tests.leaderboard.boards import built

pytestmark = pytest.mark.django_db(transaction=True)

EVIL = "<img src=x onerror=alert(1)>"
# the text of each SVG text element, its lines (Plotly's tspan.line) joined by a space
LINES = """(texts) => texts.map((t) => {
  const lines = Array.from(t.querySelectorAll("tspan.line")).map((s) => s.textContent);
  return lines.length ? lines.join(" ") : t.textContent;
})"""


def _wait_for_charts(page, count):
    assert draw_charts(page) == count


def test_the_demo_leaderboard_and_a_result_page_draw_their_charts(page):
    phase = built(dstc11.build().phases.get(slug="test"))  # as the demo command builds it
    page.goto(f"/challenges/{dstc11.SLUG}/{phase.slug}/leaderboard/")
    # 3 conditions x (JGA, SER) + robustness + scatter + 3 conditions x JGA against the
    # declared parameters (billion)
    _wait_for_charts(page, 11)
    for key in ("tts-verbatim", "human-verbatim", "human-paraphrased"):
        for metric in ("jga", "ser"):
            assert page.locator(f"#chart-{metric}-{key} .trace.bars .point").count() == 3
    assert page.locator("#chart-robustness .scatterlayer .trace").count() == 3
    assert page.locator("#chart-scatter .scatterlayer .trace").count() == 3
    assert page.locator("#chart-scatter .scatterlayer .point").count() == 9
    # The change column sorts (ascending: the team that loses most first), minus signs and all.
    page.get_by_role("button", name="Change (JGA points)").click()
    changes = page.locator("#overview-table td.change").all_inner_texts()
    values = [float(c.replace("\u2212", "-")) for c in changes]
    assert values == sorted(values) and all(c.startswith("\u2212") for c in changes)
    screenshot(page, "leaderboard-charts")

    submission = Submission.objects.get(
        method_name="Beta cascade + LM rescoring", phase__slug="test"
    )
    log_in(page, "bob")
    page.goto(f"/submissions/{submission.pk}/")
    # One condition at a time: its domains and positions charts; per-slot errors are a table.
    _wait_for_charts(page, 2)
    assert page.locator("table.slot-errors").count() == 1
    page.locator("nav.condition-tabs").get_by_role("link", name="Human-Paraphrased").click()
    page.wait_for_url("**?condition=human-paraphrased#result-human-paraphrased")
    _wait_for_charts(page, 2)
    assert page.locator("#chart-positions-human-paraphrased .scatterlayer .trace").count() == 1
    assert page.locator("#chart-positions-tts-verbatim").count() == 0
    screenshot(page, "result-page")
    page.select_option("#compare-with", label=None, index=0)
    page.get_by_role("button", name="Compare").click()
    page.wait_for_selector("table.paired")
    assert page.locator("table.paired").count() == 3
    screenshot(page, "compare")


def test_a_team_named_like_markup_is_text_everywhere_charts_included(page):
    phase = dstc11.build().phases.get(slug="test")
    Team.objects.filter(name="Team Alpha").update(name=EVIL)
    Submission.objects.filter(team__name=EVIL).update(method_name=EVIL)
    # the admin's edits: a change of the phase's boards, then built as the worker builds it
    Phase.changed(phase.pk)
    built(phase)
    page.goto(f"/challenges/{dstc11.SLUG}/{phase.slug}/leaderboard/")
    _wait_for_charts(page, 11)
    assert page.locator("img").count() == 0
    assert EVIL in page.inner_text("#overview-table")
    # Plotly draws the escaped name as SVG text: the tick labels and the legend say it verbatim.
    # (a long label is drawn on several lines, one tspan each: read back with their spaces)
    ticks = page.locator("#chart-jga-tts-verbatim .ytick text").evaluate_all(LINES)
    assert EVIL in ticks
    legend = page.locator("#chart-robustness .legendtext").evaluate_all(LINES)
    assert any(text.startswith(EVIL) for text in legend)
    # Plotly's drag layer sits above the bars: move the mouse there rather than "hover" them.
    bar = page.locator("#chart-jga-tts-verbatim .trace.bars .point >> nth=0")
    bar.scroll_into_view_if_needed()
    box = bar.bounding_box()
    page.mouse.move(box["x"] + 2, box["y"] + 2)
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector("#chart-jga-tts-verbatim .hoverlayer .hovertext", timeout=5_000)
    hover = page.locator("#chart-jga-tts-verbatim .hoverlayer").text_content()
    assert EVIL in hover
    screenshot(page, "leaderboard-hostile-name")

    log_in(page, "alice")
    submission = Submission.objects.get(team__name=EVIL, phase__slug="test")
    page.goto(f"/submissions/{submission.pk}/")
    _wait_for_charts(page, 2)
    assert page.locator("main img").count() == 0
    assert EVIL in page.inner_text("h1")


def test_the_multiwoz22_and_dvd_demo_leaderboards_draw_the_tasks_own_charts(page):
    from leaderboard.demo import other_tasks

    dstc11.build()
    for challenge in other_tasks.build():
        built(challenge.phases.get(slug="test"))  # as the demo command builds its boards
    for slug, first, second, label in (
        (other_tasks.MULTIWOZ_SLUG, "jga", "jga_cat", "Cat. JGA [95% CI]"),
        (other_tasks.DVD_SLUG, "joint", "joint_iou50", "Joint Acc IoU@0.5 [95% CI]"),
    ):
        page.goto(f"/challenges/{slug}/test/leaderboard/")
        _wait_for_charts(page, 3)  # one condition x two bar charts + the scatter
        for metric in (first, second):
            assert page.locator(f"#chart-{metric}-test .trace.bars .point").count() == 3
        assert page.locator("#chart-scatter .scatterlayer .point").count() == 3
        assert page.get_by_role("columnheader", name=label, exact=True).count() == 1
        assert page.get_by_role("columnheader", name="SER [95% CI]").count() == 0
