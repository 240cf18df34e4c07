"""The phase leaderboard page: overview and per-condition tables, baselines, NULLs, hidden
phases, and the ``?fragment=1`` partial the page polls."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from leaderboard.challenges.models import Phase
from leaderboard.submissions.models import Result
from tests.leaderboard.boards import built
from tests.leaderboard.factories import (
    UserFactory,
    approved_team,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.web import GOLD_BYTES, JGA, SER, figures, log_in, scored_submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def phase():
    return phase_with_references(GOLD_BYTES)


def _url(phase, **query):
    url = reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])
    return url + ("?fragment=1" if query.get("fragment") else "")


def _rows(html):
    return re.findall(r"<tr(?: class=\"baseline\")?>.*?</tr>", html, flags=re.S)


def test_an_empty_phase_says_so(client, phase):
    built(phase)  # its worker built the board: nobody has submitted
    page = client.get(_url(phase)).text
    assert "No scored submissions yet" in page
    assert "No results for Tts-Verbatim yet." in page
    assert "Leaderboard as of" in page and "has not been built yet" not in page


def test_a_phase_whose_board_was_never_built_says_so_rather_than_that_it_is_empty(client, phase):
    page = client.get(_url(phase)).text
    assert "This leaderboard has not been built yet" in page
    assert "No scored submissions yet" not in page and "Leaderboard as of" not in page
    # its conditions are there, without a row
    for label in ("Tts-Verbatim", "Human-Verbatim", "Human-Paraphrased"):
        assert f'<h2 id="condition-{label.lower()}">{label}</h2>' in page
    assert _rows(page) == []


def test_it_shows_the_overview_and_one_table_per_condition_with_intervals(client, phase):
    team = approved_team(phase)
    scored_submission(team, phase, method="Tracker A")
    page = client.get(_url(phase)).text
    assert page.count('<table class="ranking') == 4
    for label in ("Tts-Verbatim", "Human-Verbatim", "Human-Paraphrased"):
        assert f'<h2 id="condition-{label.lower()}">{label}</h2>' in page
    rows = [row for row in _rows(page) if team.name in row]
    assert len(rows) == 4
    for row in rows[1:]:
        # rank 1 with its interval, the method, the score with its interval
        assert re.search(
            rf'<td class="rank">1 <span class="rank-ci">\[1\]</span>.*Tracker A.*{JGA} '
            '<span class="ci"',
            row,
            flags=re.S,
        )
        assert f'{SER} <span class="ci"' in row
    # each table's caption sits above its scrolling box and names the table and the box
    for key in ("overview", "tts-verbatim", "human-verbatim", "human-paraphrased"):
        caption = f"{key}-caption" if key == "overview" else f"caption-{key}"
        assert page.count(f'<p class="caption" id="{caption}">') == 1
        assert page.count(f'aria-labelledby="{caption}"') == 1  # the table's name
    assert "Scorer signature" in page and "dstc11|norm:default|" in page


def test_baselines_are_marked(client, phase):
    scored_submission(approved_team(phase), phase, method="Baseline", is_baseline=True)
    page = client.get(_url(phase)).text
    assert page.count('<span class="badge">baseline</span>') == 4
    assert page.count('<tr class="baseline">') == 4


def test_a_row_without_a_score_is_never_ranked_first(client, phase):
    unscored = approved_team(phase)
    scored_team = approved_team(phase)
    first = scored_submission(unscored, phase, method="empty")
    Result.objects.filter(submission=first).update(
        metrics={"jga": None, "ser": None},
        intervals={},
        primary=None,
        primary_low=None,
        primary_high=None,
        tiebreak=None,
    )
    scored_submission(scored_team, phase, method="real")
    rows = [row for row in _rows(client.get(_url(phase)).text) if 'class="rank"' in row]
    per_condition = rows[2:4]  # the first condition's table follows the overview's two rows
    assert scored_team.name in per_condition[0] and JGA in per_condition[0]
    assert unscored.name in per_condition[1] and 'title="no score">—' in per_condition[1]


def test_the_fragment_is_only_the_tables_and_is_kept_no_longer_than_a_refresh(client, phase):
    scored_submission(approved_team(phase), phase)
    response = client.get(_url(phase, fragment=True))
    assert response.status_code == 200
    assert "<html" not in response.text and '<table class="ranking"' in response.text
    # the page polls every 5 seconds: a cache keeps the tables at most that long
    assert "max-age=5," in response["Cache-Control"]
    full = client.get(_url(phase)).text
    assert f'data-refresh-url="{_url(phase)}?fragment=1"' in full
    assert "js/leaderboard.js" in full


def test_a_new_result_appears_in_the_fragment_without_reloading_the_page(client, phase):
    team = approved_team(phase)
    assert team.name not in client.get(_url(phase, fragment=True)).text
    scored_submission(team, phase)
    assert team.name in client.get(_url(phase, fragment=True)).text


@pytest.mark.parametrize("who", ["anonymous", "participant", "staff"])
def test_a_hidden_phase_shows_no_results_except_to_organisers(client, phase, who):
    team = approved_team(phase)
    scored_submission(team, phase)
    Phase.objects.filter(pk=phase.pk).update(results_visibility=Phase.Visibility.HIDDEN)
    if who == "participant":
        log_in(client, team.created_by)
    elif who == "staff":
        log_in(client, with_second_factor(UserFactory(is_staff=True, is_superuser=True)))
    for url in (_url(phase), _url(phase, fragment=True)):
        page = client.get(url).text
        assert "Results are hidden until the organisers reveal them" in page
        assert team.name not in page and JGA not in figures(page)

    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    log_in(client, organiser)
    assert team.name in client.get(_url(phase)).text


def test_an_organiser_without_a_second_factor_reads_a_hidden_board_as_everyone_does(client, phase):
    # The second factor guards the hidden numbers themselves, not only the organiser pages: a
    # stolen password of an organiser who has none shows what it shows a reader.
    team = approved_team(phase)
    scored_submission(team, phase)
    Phase.objects.filter(pk=phase.pk).update(results_visibility=Phase.Visibility.HIDDEN)
    organiser = UserFactory()
    phase.challenge.organisers.add(organiser)
    log_in(client, organiser)
    board = reverse("api:leaderboard", args=[phase.pk])
    for url in (_url(phase), _url(phase, fragment=True)):
        page = client.get(url).text
        assert "Results are hidden until the organisers reveal them" in page
        assert team.name not in page and JGA not in figures(page)
    refused = client.get(board)
    assert refused.status_code == 403 and team.name not in refused.text
    with_second_factor(organiser)
    assert team.name in client.get(_url(phase)).text
    assert team.name in client.get(board).text


def test_a_hidden_board_names_no_refresh_as_it_has_no_table(client, phase):
    scored_submission(approved_team(phase), phase)
    visible = client.get(_url(phase)).text
    assert "The tables and charts refresh by themselves every second." in visible
    Phase.objects.filter(pk=phase.pk).update(results_visibility=Phase.Visibility.HIDDEN)
    page = client.get(_url(phase)).text
    assert "Results are hidden until the organisers reveal them" in page
    assert "<table" not in page
    # no wording about refreshing, and nothing for the page's script to poll
    assert "refresh" not in page.replace("js/leaderboard.js", "").lower()
    assert "data-refresh-url" not in page


def test_a_revealed_phase_is_public_again(client, phase):
    team = approved_team(phase)
    scored_submission(team, phase)
    Phase.objects.filter(pk=phase.pk).update(results_visibility="hidden", revealed=True)
    assert team.name in client.get(_url(phase)).text


def test_an_unknown_phase_is_404(client, phase):
    url = reverse("rankings:leaderboard", args=[phase.challenge.slug, "nope"])
    assert client.get(url).status_code == 404
