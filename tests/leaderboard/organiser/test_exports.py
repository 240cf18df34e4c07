"""Exports parse, and their numbers equal the page's: the reader JSON/CSV hold exactly what
the leaderboard page shows (public board, then the published snapshot); the organisers'
archive holds every Result and the per-dialogue correctness matrix."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.urls import reverse

from leaderboard.challenges.models import Phase
from leaderboard.rankings.snapshots import reveal
from tests.leaderboard.boards import built
from tests.leaderboard.organiser import construction as c
from tests.leaderboard.organiser.conftest import KEY, close
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db


def _urls(phase):
    args = [phase.challenge.slug, phase.slug]
    return (
        reverse("rankings:leaderboard", args=args),
        reverse("rankings:export-json", args=args),
        reverse("rankings:export-csv", args=args),
        reverse("rankings:archive", args=args),
    )


def _means(board: dict, metric: str = "jga") -> list[float]:
    """The overview rows' means of ``metric`` (the overview keeps the board's first two)."""
    at = [c["name"] for c in board["columns"]].index(metric)
    return [row["means"][at] for row in board["overview"]]


def _page_rows(html: str, table_id: str) -> list[list[str]]:
    table = html.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]
    body = table.split("<tbody>", 1)[1]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    cell = re.compile(r"<t[dh][^>]*>(.*?)</t[dh]>", re.S)
    return [[re.sub(r"<[^>]+>", "", c).strip() for c in cell.findall(row)] for row in rows]


def test_reader_exports_equal_the_page_on_a_public_split_phase(world, client):
    # the organiser's edit in the admin: a change of the phase's boards, then built
    Phase.objects.filter(pk=world.phase.pk).update(results_visibility=Phase.Visibility.PUBLIC)
    Phase.changed(world.phase.pk)
    world.phase = built(world.phase)
    page_url, json_url, csv_url, archive_url = _urls(world.phase)
    page = client.get(page_url).text
    data = client.get(json_url).json()
    # (rank, JGA): the first word of each cell (the rank interval and the count of scored
    # submissions follow them); one condition, so its table is the page's only ranking and the
    # exports' overview (mean over that one condition) must equal it
    table = [[cell.split()[0] if cell else "" for cell in row] for row in
             _page_rows(page, "table-tts-verbatim")]  # fmt: skip
    assert 'id="overview-table"' not in page
    # by construction: A 100, B 75 (B2), C 25 (C1) on the public part
    assert [(row[0], row[4]) for row in table] == [("1", "100.00"), ("2", "75.00"), ("3", "25.00")]
    ranks = [str(r["rank"]) for r in data["public"]["overview"]]
    exported = [(rank, f"{v:.2f}") for rank, v in zip(ranks, _means(data["public"]), strict=True)]
    assert exported == [(row[0], row[4]) for row in table]
    assert data["final"] is None
    every = list(csv.DictReader(io.StringIO(client.get(csv_url).text)))
    lines = [line for line in every if not line["statistic"]]
    overview = [line for line in lines if line["condition"] == "overview"]
    assert [(line["rank"], f"{float(line['jga']):.2f}") for line in overview] == exported
    condition = [line for line in lines if line["condition"] == "tts-verbatim"]
    assert [line["method"] for line in condition] == ["run A1", "run B2", "run C1"]
    # the scored submissions behind each row: A one, B and C two each
    assert [line["submissions"] for line in condition] == ["1", "2", "2"]
    assert all(line["rank_low"] and line["rank_high"] for line in condition)
    assert all(line["board"] == "public" for line in every)
    # the condition's detectable difference, as the JSON has it; no shake-up on a live board
    (detectable,) = [line for line in every if line["statistic"] == "detectable_difference"]
    stored = data["public"]["conditions"][0]["detectable"]
    assert detectable["statistic_value"] == f"{stored:.4f}"
    assert {line["statistic"] for line in every if line["statistic"]} == {"detectable_difference"}
    assert client.get(archive_url).status_code in (302, 404)  # readers get no archive


def test_after_the_reveal_the_exports_carry_the_snapshot_as_the_page_shows_it(world, client):
    close(world.phase)
    reveal(world.phase, world.organiser)
    page_url, json_url, csv_url, _ = _urls(world.phase)
    page = client.get(page_url).text
    final_rows = _page_rows(page, "final-table")
    assert [(r[0].split()[0], r[2], r[3]) for r in final_rows] == [
        ("1", "run B1", "85.71"),
        ("2", "run C1", "42.86"),
        ("3", "run A1", "14.29"),
    ]
    data = client.get(json_url).json()
    assert data["final"]["snapshot"] == 1
    rows = data["final"]["overview"]
    assert [
        (str(r["rank"]), r["method_name"], f"{v:.2f}")
        for r, v in zip(rows, _means(data["final"]), strict=True)
    ] == [(r[0].split()[0], r[2], r[3]) for r in final_rows]
    every = list(csv.DictReader(io.StringIO(client.get(csv_url).text)))
    lines = [line for line in every if not line["statistic"]]
    final = [line for line in lines if line["board"] == "final" and line["condition"] == "overview"]
    assert [f"{float(line['jga']):.2f}" for line in final] == ["85.71", "42.86", "14.29"]
    # each final selection's move from the public part, by construction: B1 50 on the public
    # part (2nd there), C1 25 (3rd), A1 100 (1st)
    assert [(line["public_rank"], line["rank_change"], line["public_score"], line["score_shift"])
            for line in final] == [
        ("2", "1", "50.0000", f"{600 / 7 - 50:.4f}"),
        ("3", "1", "25.0000", f"{300 / 7 - 25:.4f}"),
        ("1", "-2", "100.0000", f"{100 / 7 - 100:.4f}"),
    ]  # fmt: skip
    # Kendall's tau of (50, 25, 100) against (85.71, 42.86, 14.29): one concordant pair of
    # three, two discordant: (1 - 2) / 3
    taus = {line["condition"]: line for line in every
            if line["board"] == "final" and line["statistic"] == "kendall_tau"}  # fmt: skip
    assert taus["overview"]["statistic_value"] == f"{-1 / 3:.4f}"
    assert data["final"]["shakeups"][0]["tau"] == pytest.approx(-1 / 3)


def test_the_archive_has_every_result_and_the_correctness_matrix(world, client):
    *_, archive_url = _urls(world.phase)
    log_in(client, world.teams["A"].created_by)
    assert client.get(archive_url).status_code == 404
    log_in(client, world.organiser)
    data = client.get(archive_url).json()
    assert len(data["results"]) == len(c.RUNS)
    by_method = {row["method"]: row for row in data["results"]}
    for name, (public, private) in c.RUNS.items():
        row = by_method[f"run {name}"]
        assert row["part_metrics"]["public"]["metrics"]["jga"] == pytest.approx(100 * public / 4)
        assert row["part_metrics"]["private"]["metrics"]["jga"] == pytest.approx(100 * private / 7)
        assert row["metrics"]["jga"] == pytest.approx(100 * (public + private) / 11)
        assert row["signature"].startswith("dstc11|") and row["current"]
    assert by_method["run B1"]["final_selection"] and not by_method["run B2"]["final_selection"]
    assert by_method["run C1"]["final_selection"] and not by_method["run C2"]["final_selection"]
    matrix = data["correctness"]["tts-verbatim"]
    assert matrix["metric"] == "jga"
    order = matrix["dialogues"]
    assert sorted(order) == sorted(c.PUBLIC_IDS + c.PRIVATE_IDS)
    a1 = str(world.runs["A1"].pk)

    def by_dialogue(column):
        return dict(zip(order, column[a1], strict=True))

    right, turns, verdicts = (
        by_dialogue(matrix["numerators"]),
        by_dialogue(matrix["denominators"]),
        by_dialogue(matrix["turns"]),
    )
    # A1: every public turn right; the first private turn right (1 of 7)
    assert [right[d] for d in c.PUBLIC_IDS] == [1, 1, 1, 1]
    assert [right[d] for d in c.PRIVATE_IDS] == [1, 0, 0]
    assert [turns[d] for d in c.PUBLIC_IDS + c.PRIVATE_IDS] == [1, 1, 1, 1, *c.PRIVATE_TURNS]
    assert [verdicts[d] for d in c.PUBLIC_IDS] == ["1", "1", "1", "1"]
    assert [verdicts[d] for d in c.PRIVATE_IDS] == ["10", "00", "000"]
    # B1: 2 of 4 public and 6 of 7 private turns right, the private ones first
    b1 = dict(zip(order, matrix["turns"][str(world.runs["B1"].pk)], strict=True))
    assert [b1[d] for d in c.PUBLIC_IDS] == ["1", "1", "0", "0"]
    assert [b1[d] for d in c.PRIVATE_IDS] == ["11", "11", "110"]


def test_the_csv_lists_a_reported_figure_under_its_metrics_even_one_the_board_lacks(world):
    from leaderboard.analyses.exports import reader_csv, reader_export
    from leaderboard.rankings.models import ReportedResult

    # the organiser's edits in the admin: each a change of the phase's boards, then built
    Phase.objects.filter(pk=world.phase.pk).update(results_visibility=Phase.Visibility.PUBLIC)
    phase = Phase.objects.get(pk=world.phase.pk)
    ReportedResult.objects.create(
        phase=phase, condition=phase.conditions.get(), label="=Paper system",
        metrics={"slot_f1": 80.5, "jga": 45.25}, source="a paper", shown=True,
    )  # fmt: skip
    Phase.changed(phase.pk)
    phase = built(phase)
    data = reader_export(phase, world.outsider)
    lines = list(csv.DictReader(io.StringIO(reader_csv(data))))
    header = list(lines[0])
    assert header[:3] == ["board", "shows", "condition"]
    # the board's columns (JGA, SER with intervals), then the reported one it lacks (Slot F1),
    # then each line's rank interval, scored submissions and move, and the statistics' columns
    assert header[9:] == [
        "jga", "jga_low", "jga_high", "ser", "ser_low", "ser_high",
        "slot_f1", "slot_f1_low", "slot_f1_high",
        "rank_low", "rank_high", "submissions",
        "public_rank", "rank_change", "public_score", "score_shift",
        "statistic", "statistic_value", "statistic_low", "statistic_high",
        "signature", "source",
    ]  # fmt: skip
    (reported,) = [line for line in lines if line["board"] == "reported (not scored here)"]
    assert (reported["jga"], reported["slot_f1"], reported["ser"]) == ("45.2500", "80.5000", "")
    assert reported["jga_low"] == "" and reported["source"] == "a paper"
    assert reported["method"] == "'=Paper system"  # never a spreadsheet formula
    ranked = [line for line in lines if line["board"] == "public" and line["condition"] == KEY
              and not line["statistic"]]  # fmt: skip
    # by construction, public JGA: A1 100, B2 75, C1 25; SER is its complement (one slot a turn)
    assert [(line["method"], line["jga"], line["ser"]) for line in ranked] == [
        ("run A1", "100.0000", "0.0000"),
        ("run B2", "75.0000", "25.0000"),
        ("run C1", "25.0000", "75.0000"),
    ]
    assert all(line["slot_f1"] == "" for line in ranked)
