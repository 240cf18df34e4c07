"""The leaderboard endpoint: the overview or one condition, paginated, or as CSV."""

from __future__ import annotations

import csv
import io

import pytest

from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import KEYS, approved_team
from tests.leaderboard.web import scored_submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def board(actors):
    scored_submission(actors.team, actors.phase, "First")
    scored_submission(actors.other_team, actors.phase, "Second")
    scored_submission(approved_team(actors.phase), actors.phase, "Third")
    return actors.phase


def test_the_overview_ranks_teams_with_their_per_condition_scores(board):
    body = token_client().get(f"/api/v1/phases/{board.pk}/leaderboard/").json()
    assert body["condition"] is None and body["primary_metric"] == "jga"
    assert [c["key"] for c in body["conditions"]] == list(KEYS)
    assert body["count"] == 3
    first = body["results"][0]
    # All three submissions are identical: a three-way tie, ranked 1, broken by time in order.
    assert [r["rank"] for r in body["results"]] == [1, 1, 1]
    assert [r["method_name"] for r in body["results"]] == ["First", "Second", "Third"]
    assert set(first["per_condition"]) == set(KEYS)
    assert f"{first['means']['jga']:.2f}" == "75.00"
    # The overview's means and per-condition values are the board's first two metrics.
    assert [m["name"] for m in body["metrics"]] == ["jga", "ser"]
    assert f"{first['means']['ser']:.2f}" == "16.67"
    assert f"{first['per_condition']['tts-verbatim']['ser']:.2f}" == "16.67"
    assert "jga" not in first and "ser" not in first


def test_a_condition_board_has_intervals_and_signatures_and_pages(board):
    client = token_client()
    url = f"/api/v1/phases/{board.pk}/leaderboard/?condition=human-verbatim&page_size=2"
    page = client.get(url).json()
    assert page["condition"] == "human-verbatim"
    assert page["count"] == 3 and len(page["results"]) == 2
    row = page["results"][0]
    jga = row["metrics"]["jga"]
    assert jga["ci"][0] <= jga["value"] <= jga["ci"][1]
    assert f"{row['metrics']['ser']['value']:.2f}" == "16.67"
    assert list(row["metrics"]) == [m["name"] for m in page["metrics"]] == ["jga", "ser"]
    assert row["signature"].startswith("dstc11|")
    rest = client.get(page["next"]).json()
    assert len(rest["results"]) == 1 and rest["previous"]


def test_format_csv_gives_every_row_of_the_table(board):
    client = token_client()
    response = client.get(f"/api/v1/phases/{board.pk}/leaderboard/?format=csv&page_size=1")
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [r["method"] for r in rows] == ["First", "Second", "Third"]
    assert rows[0]["tts-verbatim_jga"] == "75.0000"
    one = client.get(f"/api/v1/phases/{board.pk}/leaderboard/?format=csv&condition=tts-verbatim")
    first = next(csv.DictReader(io.StringIO(one.content.decode())))
    assert first["ser"] == "16.6667" and first["signature"].startswith("dstc11|")
    assert float(first["jga_low"]) <= float(first["jga"]) <= float(first["jga_high"])
    assert "slot_f1" not in first  # a metric without an interval is no board column


def test_the_csv_has_an_address_of_its_own_whatever_the_client_accepts(board):
    client = token_client()
    for accept in ("*/*", "application/json", "text/html"):
        response = client.get(f"/api/v1/phases/{board.pk}/leaderboard.csv", HTTP_ACCEPT=accept)
        assert response.status_code == 200, accept
        assert response["Content-Type"] == "text/csv; charset=utf-8"
        assert 'filename="' in response["Content-Disposition"]
        rows = list(csv.DictReader(io.StringIO(response.content.decode())))
        assert [r["method"] for r in rows] == ["First", "Second", "Third"]
        assert rows[0]["tts-verbatim_jga"] == "75.0000"
    one = client.get(f"/api/v1/phases/{board.pk}/leaderboard.csv?condition=tts-verbatim")
    assert next(csv.DictReader(io.StringIO(one.content.decode())))["ser"] == "16.6667"


def test_the_csv_addresses_errors_are_the_apis_json(board):
    client = token_client()
    wrong = client.get(f"/api/v1/phases/{board.pk}/leaderboard.csv?condition=nope")
    assert wrong.status_code == 400 and wrong["Content-Type"] == "application/json"
    assert wrong.json()["error"]["details"] == {
        "condition": ["This phase has no condition 'nope'."]
    }
    missing = client.get("/api/v1/phases/999999/leaderboard.csv")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_csv_cells_cannot_run_as_spreadsheet_formulas(actors):
    actors.team.name = "=HYPERLINK(1)"
    actors.team.save()
    scored_submission(actors.team, actors.phase, "@cmd")
    text = token_client().get(f"/api/v1/phases/{actors.phase.pk}/leaderboard/?format=csv")
    row = next(csv.DictReader(io.StringIO(text.content.decode())))
    assert row["team"] == "'=HYPERLINK(1)" and row["method"] == "'@cmd"


def test_an_empty_board_is_an_empty_page(actors):
    body = token_client().get(f"/api/v1/phases/{actors.phase.pk}/leaderboard/").json()
    assert body["count"] == 0 and body["results"] == []
