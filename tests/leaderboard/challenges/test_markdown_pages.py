"""A challenge's pages (overview, data, evaluation, rules, terms) are Markdown from its
organisers, rendered on the challenge page and sanitised: no script, event handler, style,
image or javascript: link reaches a reader, raw HTML shows as text, headings sit under the
page's own."""

from __future__ import annotations

import pytest
from django.urls import reverse

from leaderboard.challenges.pages import render
from tests.leaderboard.factories import phase_with_references
from tests.leaderboard.web import GOLD_BYTES

pytestmark = pytest.mark.django_db


def test_markdown_becomes_html_with_headings_under_the_pages_own():
    html = render("# Data\n\nSee **the gold** and [the paper](https://example.org/p).\n\n- a\n- b")
    assert "<h3>Data</h3>" in html
    assert "<strong>the gold</strong>" in html
    assert (
        '<a href="https://example.org/p" rel="nofollow noopener noreferrer">the paper</a>' in html
    )
    assert "<ul>\n<li>a</li>\n<li>b</li>\n</ul>" in html


def test_a_table_is_kept():
    html = render("| metric | better |\n|---|---|\n| JGA | higher |")
    assert "<table>" in html and "<th>metric</th>" in html and "<td>higher</td>" in html


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("<script>alert(1)</script>", "<script"),
        ('<img src="x" onerror="alert(1)">', "<img"),
        ("[click](javascript:alert(1))", 'href="javascript:'),
        ("[click](JaVaScRiPt:alert(1))", "href="),
        ("![tracker](https://example.org/pixel.png)", "<img"),
        ('<a href="https://x.org" onclick="alert(1)">x</a>', "<a "),
        ('<p style="color:red">red</p>', "<p style"),
        ("[data](data:text/html;base64,PHNjcmlwdD4=)", 'href="data:'),
    ],
)
def test_nothing_active_reaches_the_reader(text, absent):
    html = render(text)
    assert absent.lower() not in html.lower()


def test_raw_html_is_shown_as_text():
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in render("<script>alert(1)</script>")


def test_the_challenge_page_shows_each_page_with_its_section(client):
    phase = phase_with_references(GOLD_BYTES)
    challenge = phase.challenge
    challenge.description = "Track **dialogue states** from speech."
    challenge.data = "## Download\n\nThe [audio](https://example.org/audio) is public."
    challenge.evaluation = "JGA on the *hidden* test set."
    challenge.rules = "1. One team per person.\n2. No <b>manual</b> labelling."
    challenge.terms = "By taking part you agree to publish a system description."
    challenge.save()
    page = client.get(reverse("challenges:detail", args=[challenge.slug])).text
    assert "Track <strong>dialogue states</strong> from speech." in page
    assert '<h2 id="page-data">Data</h2>' in page and "<h4>Download</h4>" in page
    assert '<h2 id="page-evaluation">Evaluation</h2>' in page and "<em>hidden</em>" in page
    assert "<li>One team per person.</li>" in page and "&lt;b&gt;manual&lt;/b&gt;" in page
    assert '<h2 id="page-terms">Terms of participation</h2>' in page
    for anchor in (
        "page-description",
        "page-data",
        "page-evaluation",
        "rules-heading",
        "page-terms",
    ):
        assert f'href="#{anchor}"' in page
    # the sections come in this order
    order = [
        page.index(f'id="{a}"')
        for a in ("page-description", "page-data", "page-evaluation", "rules-heading", "page-terms")
    ]
    assert order == sorted(order)


def test_a_page_without_text_has_no_section(client):
    phase = phase_with_references(GOLD_BYTES)
    page = client.get(reverse("challenges:detail", args=[phase.challenge.slug])).text
    assert 'id="page-terms"' not in page and 'href="#page-terms"' not in page
    # the data section stays: it lists each condition's sample submission
    data = page[page.index('id="page-data"') : page.index('id="rules-heading"')]
    assert "Sample submission, Tts-Verbatim" in data and 'class="prose"' not in data
    assert "No rules published yet." in page
