"""No chart's text is cut: on the demo's DSTC11 leaderboard, its robustness page, a result
page and "My submissions" (the team's history), at a phone's width (390 px) and a desktop's
(1366 px), every title, axis title, tick label and legend text of every chart lies inside the
chart's box; the robustness chart's percentage axis stops at 100; and "My submissions" keeps
each JGA / SER pair on the screen."""

from __future__ import annotations

from typing import Any

import pytest

from leaderboard.demo import dstc11
from leaderboard.submissions.models import Submission
from leaderboard.teams.models import Team
from tests.browser.conftest import draw_charts, log_in
from tests.leaderboard.boards import built

pytestmark = pytest.mark.django_db(transaction=True)

LONG = "Spoken Language Systems Group, Saarland University"
SIZES = {"phone": (390, 844), "desktop": (1366, 900)}

# Every text Plotly draws that a reader must read whole, measured against its chart's box.
CUT = """() => {
  const found = [];
  let checked = 0;
  const texts = "text.gtitle, text.xtitle, text.ytitle, .xtick text, .ytick text, "
    + "text.legendtext, text.legendtitletext";
  document.querySelectorAll("[data-chart].drawn").forEach((chart) => {
    const box = chart.getBoundingClientRect();
    chart.querySelectorAll(texts).forEach((t) => {
      const r = t.getBoundingClientRect();
      if (!t.textContent.trim() || r.width === 0) { return; }
      checked += 1;
      if (r.left < box.left - 1 || r.right > box.right + 1
          || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
        found.push(`${chart.id}: "${t.textContent}" at [${Math.round(r.left)}, `
          + `${Math.round(r.right)}] x [${Math.round(r.top)}, ${Math.round(r.bottom)}], box [`
          + `${Math.round(box.left)}, ${Math.round(box.right)}] x [${Math.round(box.top)}, `
          + `${Math.round(box.bottom)}]`);
      }
    });
  });
  return {found: found, checked: checked};
}"""

# The JGA / SER pairs of "My submissions": each one's right edge against the window's.
PAIRS = """() => Array.from(document.querySelectorAll("#my-submissions .score-pair"))
  .map((p) => [p.textContent, p.getBoundingClientRect().right, window.innerWidth])"""


def _charts(page: Any, path: str, count: int) -> list[str]:
    page.goto(path)
    assert draw_charts(page) == count
    measured = page.evaluate(CUT)
    # every chart has at least its axes' ticks to measure (the check measures something)
    assert measured["checked"] >= 4 * count, (path, measured["checked"])
    return measured["found"]


def test_no_chart_text_is_cut_and_my_submissions_keeps_its_scores_on_screen(browser, live_server):
    challenge = dstc11.build()
    # a team named as real ones are: long, and the longest labels are what a phone cuts
    Team.objects.filter(name="Team Alpha").update(name=LONG)
    phase = built(challenge.phases.get(slug="test"))  # as the demo command builds it
    board = f"/challenges/{dstc11.SLUG}/{phase.slug}"
    result = Submission.objects.get(method_name="Beta cascade + LM rescoring", phase=phase)
    problems: list[str] = []
    for size, (width, height) in SIZES.items():
        context = browser.new_context(
            base_url=live_server.url,
            viewport={"width": width, "height": height},
            has_touch=size == "phone",
        )
        page = context.new_page()
        log_in(page, "bob")
        # 3 conditions x (JGA, SER) + robustness + scatter; the changes; domains and positions
        for path, count in (
            (f"{board}/leaderboard/", 11),  # with the 3 charts against the declared size
            (f"{board}/robustness/", 1),
            (f"/submissions/{result.pk}/", 2),
            (f"{board}/submissions/", 3),  # the history: one chart per condition
        ):
            problems += [f"{size} {path} {p}" for p in _charts(page, path, count)]
            if path.endswith("/leaderboard/"):
                top = page.evaluate(
                    "document.getElementById('chart-robustness')._fullLayout.yaxis.range[1]"
                )
                if top > 100:
                    problems.append(f"{size}: the robustness axis runs to {top:.1f} %")
        page.goto(f"{board}/submissions/")
        pairs = page.evaluate(PAIRS)
        assert pairs, "no scores on My submissions"
        problems += [
            f"{size} My submissions: {t!r} ends at {r:.0f} of {w}" for t, r, w in pairs if r > w
        ]
        context.close()
    assert problems == [], "\n".join(problems)
