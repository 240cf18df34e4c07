"""Paper tables on the DSTC11 test gold with three published systems as three teams: AuGPT,
DAMD (as a baseline) and LABES, missing turns filled as empty.

Independent figures (tests/data/README.md and the published settings): AuGPT JGA 17.93 and SER
45.40; DAMD with missing turns empty JGA 12.72 and SER 60.78. The gold is the same on the three
conditions, so each team has the same numbers on each.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest
from django.test import Client
from django.urls import reverse

from leaderboard.analyses.papers import TableError, render
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.numbers import signed as score_signed
from leaderboard.submissions import services
from tests.conftest import require
from tests.leaderboard.boards import built, leaderboard
from tests.leaderboard.factories import (
    KEYS,
    UserFactory,
    approved_team,
    phase_with_references,
    uploads,
    with_second_factor,
)
from tests.leaderboard.once import built_once

pytestmark = pytest.mark.django_db

SYSTEMS = (("AuGPT team", "augpt.json"), ("DAMD team", "damd.json"), ("LABES team", "labes.json"))


@pytest.fixture(scope="module")
def _three_teams(django_db_setup, django_db_blocker, fixtures_dir, tmp_path_factory):
    """The three teams' phase, scored and built once for the module (nine real-size runs are
    most of its time; ``built_once``)."""
    with built_once(django_db_blocker, tmp_path_factory) as storages:
        yield _scored_three_teams(fixtures_dir), storages


@pytest.fixture
def three_teams(_three_teams, settings) -> Phase:
    """The module's phase, with its private files where this test's storage looks."""
    phase, storages = _three_teams
    settings.STORAGES = storages
    return Phase.objects.select_related("challenge").get(pk=phase.pk)


def _scored_three_teams(fixtures_dir) -> Phase:
    gold = (fixtures_dir / "dstc11" / "test-dstc11.gold.json").read_bytes()
    phase = phase_with_references(gold)
    Challenge.objects.filter(pk=phase.challenge_id).update(
        title="DSTC11 SA-DST", scorer_options={"missing": "empty"}
    )
    phase = Phase.objects.select_related("challenge").get(pk=phase.pk)
    for name, file in SYSTEMS:
        team = approved_team(phase)
        team.name = name
        team.save()
        data = (fixtures_dir / "mwzeval-predictions" / file).read_bytes()
        submission = services.submit(
            team=team,
            phase=phase,
            user=team.created_by,
            files=uploads(data),
            method_name=file.removesuffix(".json").upper(),
            is_baseline=file == "damd.json",
            enqueue=False,
        )
        assert services.run_scoring(submission.pk) == "scored"
    Phase.changed(phase.pk)  # the challenge's edit above, as the admin marks it
    return built(phase)  # as the board's worker builds the boards after these changes


def _line(text: str, team: str) -> str:
    (line,) = [x for x in text.splitlines() if x.startswith(team)]
    return line


def _numbers(line: str) -> list[str]:
    return re.findall(r"\d+\.\d\d", line)


def _expected(board, team: str) -> list[str]:
    """The board's numbers of ``team`` as the table lists them: per condition, the primary
    metric, its interval, then the second column."""
    out = []
    for condition in board.conditions:
        (row,) = [r for r in condition.rows if r.team_name == team]
        (value, low, high), (second, _, _) = row.cells[:2]
        out += [f"{v:.2f}" for v in (value, low, high, second)]
    return out


def test_the_latex_table_compiles_and_shows_the_boards_numbers(three_teams, client, tmp_path):
    phase = three_teams
    url = reverse("rankings:table", args=[phase.challenge.slug, phase.slug, "tex"])
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/x-tex")
    latex = response.content.decode()
    board = leaderboard(phase, "public")
    assert [c.name for c in board.columns][:2] == ["jga", "ser"]

    augpt, damd = _line(latex, "AuGPT team"), _line(latex, "DAMD team")
    labes = _line(latex, "LABES team")
    assert _numbers(augpt) == _expected(board, "AuGPT team")
    assert _numbers(damd) == _expected(board, "DAMD team")
    assert _numbers(labes) == _expected(board, "LABES team")
    # the published figures, on each condition
    assert _numbers(augpt)[0::4] == ["17.93"] * 3 and _numbers(augpt)[3::4] == ["45.40"] * 3
    assert _numbers(damd)[0::4] == ["12.72"] * 3 and _numbers(damd)[3::4] == ["60.78"] * 3
    # AuGPT has the best JGA and the best (lowest) SER of the three on every condition
    assert augpt.count("\\textbf{17.93}") == 3 and augpt.count("\\textbf{45.40}") == 3
    assert "\\textbf" not in damd
    # the baseline's dagger (its method named), the booktabs rules, the signature
    assert damd.startswith("DAMD team (DAMD)$^\\dagger$ &")
    assert "\\toprule" in latex and "\\midrule" in latex and "\\bottomrule" in latex
    signature = board.conditions[0].rows[0].signature
    assert signature.startswith("dstc11|") and signature.split("|")[0] in latex
    assert "gold:sha256:" in latex
    # the rank groups on each primary value: the three differ significantly (1, 2, 3)
    groups = [re.findall(r"\\textsuperscript\{([^}]*)\}", _line(latex, t)) for t, _ in SYSTEMS]
    expected_groups = [
        [next(r.group for r in c.rows if r.team_name == t) for c in board.conditions]
        for t, _ in SYSTEMS
    ]
    assert groups == [[g.replace("\u2013", "--") for g in gs] for gs in expected_groups]

    require("pdflatex", shutil.which("pdflatex") is not None, "texlive-latex-recommended")
    document = tmp_path / "table.tex"
    document.write_text(
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n"
        "\\usepackage[a4paper,margin=1cm,landscape]{geometry}\n"
        f"\\begin{{document}}\n{latex}\\end{{document}}\n"
    )
    compiled = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "table.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert compiled.returncode == 0, compiled.stdout[-2000:]
    assert (tmp_path / "table.pdf").stat().st_size > 1000

    # Markdown: the same numbers, the options choose conditions and metrics
    markdown = client.get(
        reverse("rankings:table", args=[phase.challenge.slug, phase.slug, "md"]),
        {"conditions": "human-paraphrased", "metrics": "ser"},
    ).content.decode()
    line = _line(markdown, "| AuGPT team")
    assert _numbers(line) == ["17.93", *_expected(board, "AuGPT team")[1:3], "45.40"]
    assert "**17.93**" in line and "**45.40**" in line
    assert "Human-Paraphrased: JGA" in markdown and "Tts-Verbatim" not in markdown
    # the API (and so ``trackboard table``) gives the page's table
    api = client.get(f"/api/v1/phases/{phase.pk}/table/", {"as": "latex"}).json()
    assert api["format"] == "latex" and api["table"] == latex


def test_table_options_name_what_is_wrong(three_teams, client):
    board = leaderboard(three_teams, "public")
    with pytest.raises(TableError, match="Unknown condition 'spoken'"):
        render(board, "latex", conditions=["spoken"])
    with pytest.raises(TableError, match="Unknown metric 'bleu'"):
        render(board, "markdown", metrics=["bleu"])
    url = reverse("rankings:table", args=[three_teams.challenge.slug, three_teams.slug, "tex"])
    response = client.get(url, {"metrics": "bleu"})
    assert response.status_code == 400 and "Unknown metric 'bleu'" in response.text
    api = client.get(f"/api/v1/phases/{three_teams.pk}/table/", {"as": "docx"})
    assert api.status_code == 400 and "Unknown table format 'docx'" in api.text
    response = client.get(url, {"rank_intervals": "maybe"})
    assert response.status_code == 400
    assert "rank_intervals takes yes or no, not 'maybe'" in response.text
    api = client.get(f"/api/v1/phases/{three_teams.pk}/table/", {"rank_intervals": "2"})
    assert api.status_code == 400 and "rank_intervals takes yes or no" in api.text


def test_the_tables_rank_intervals_are_the_boards(three_teams, client):
    board = leaderboard(three_teams, "public")
    md = reverse("rankings:table", args=[three_teams.challenge.slug, three_teams.slug, "md"])
    text = client.get(md, {"rank_intervals": "yes", "conditions": KEYS[0]}).text
    assert "| Team | Tts-Verbatim: Rank | Tts-Verbatim: JGA" in text
    for row in board.conditions[0].rows:
        low, high = row.rank_low, row.rank_high
        span = str(low) if low == high else f"{low}\u2013{high}"
        assert _line(text, f"| {row.team_name}").split(" | ")[1] == f"{row.rank} [{span}]"
    assert "Rank with its 95% interval over resamples of the dialogues" in text
    tex = reverse("rankings:table", args=[three_teams.challenge.slug, three_teams.slug, "tex"])
    latex = client.get(tex, {"rank_intervals": "yes"}).text
    first = board.conditions[0].rows[0]
    assert f"{first.rank} {{\\scriptsize [{first.rank_low}" in latex
    assert "Team & Rank & JGA" in latex
    assert "Rank" not in client.get(md).text  # not unless asked for


def test_a_hidden_phase_has_no_table_before_the_reveal(db):
    from tests.leaderboard.organiser.conftest import close
    from tests.leaderboard.web import log_in

    gold = b'{"d1": [{"hotel": {"area": "north"}}]}'
    phase = phase_with_references(
        gold, keys=("tts-verbatim",), results_visibility=Phase.Visibility.HIDDEN
    )
    team = approved_team(phase)
    submission = services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files=uploads(gold, keys=("tts-verbatim",)),
        method_name="run",
        enqueue=False,
    )
    assert services.run_scoring(submission.pk) == "scored"
    paths = [
        reverse("rankings:table", args=[phase.challenge.slug, phase.slug, s]) for s in ("tex", "md")
    ] + [f"/api/v1/phases/{phase.pk}/table/"]
    pairwise = [
        reverse("rankings:pairwise", args=[phase.challenge.slug, phase.slug]),
        f"/api/v1/phases/{phase.pk}/pairwise/",
        reverse("rankings:robustness", args=[phase.challenge.slug, phase.slug]),
        f"/api/v1/phases/{phase.pk}/robustness/",
        reverse("rankings:errors", args=[phase.challenge.slug, phase.slug]),
        f"/api/v1/phases/{phase.pk}/errors/",
    ]
    member = Client()
    log_in(member, team.created_by)
    page = reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])
    assert paths[0] not in Client().get(page).text
    for reader in (Client(), member):
        for path in paths:
            for query in ({}, {"board": "public"}, {"board": "final"}):
                assert reader.get(path, query).status_code == 404, path
        for path in pairwise:
            query = {"a": submission.pk, "b": submission.pk + 1}
            assert reader.get(path, query).status_code == 404, path
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    staff = Client()
    log_in(staff, organiser)
    assert staff.get(paths[0]).status_code == 200

    from leaderboard.rankings.snapshots import reveal

    submission.refresh_from_db()
    services.select_final(submission, team.created_by, True)  # before the close: it freezes
    close(phase)
    phase = built(phase)  # as the board's worker builds the boards after the selection
    reveal(phase, organiser)
    response = Client().get(paths[0], {"board": "final"})
    assert response.status_code == 200 and "100.00" in response.text
    # the pages link the tables once readers may have them
    page = Client().get(reverse("rankings:snapshot", args=[phase.challenge.slug, phase.slug, 1]))
    assert f"{paths[0]}?board=final&amp;snapshot=1" in page.text
    board = Client().get(reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug]))
    assert f'href="{paths[1]}"' in board.text


def test_augpt_against_labes_is_the_scorers_paired_comparison(three_teams, client, fixtures_dir):
    """The pairwise page of AuGPT and LABES on Human-Paraphrased gives what
    ``python -m scoring compare`` prints for the same files (difference, interval, p-value)."""
    phase = three_teams
    board = leaderboard(phase, "public")
    (condition,) = [c for c in board.conditions if c.key == "human-paraphrased"]
    ids = {r.team_name: r.submission_id for r in condition.rows}
    gold = fixtures_dir / "dstc11" / "test-dstc11.gold.json"
    predictions = fixtures_dir / "mwzeval-predictions"
    done = subprocess.run(
        [sys.executable, "-m", "scoring", "compare", "--gold", str(gold),
         "--pred", str(predictions / "augpt.json"), "--pred", str(predictions / "labes.json"),
         "--missing", "empty", "--json"],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    expected = json.loads(done.stdout)["paired"]["jga"]

    url = reverse("rankings:pairwise", args=[phase.challenge.slug, phase.slug])
    response = client.get(url, {"a": ids["AuGPT team"], "b": ids["LABES team"]})
    assert response.status_code == 200
    row = re.search(
        r'<tr data-condition="human-paraphrased">(.*?)</tr>', response.text, re.S
    ).group(1)
    cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
    low, high = expected["ci"]
    assert cells[0] == f"{expected['a']:.2f}" == "17.93"
    assert cells[1] == f"{expected['b']:.2f}"
    assert cells[2] == f"+{expected['difference']:.2f} [+{low:.2f}, +{high:.2f}]"
    assert cells[3].startswith(f"{expected['p_value']:.4f}")
    # the dialogues each side wins: at most the 1,000 dialogues, and some for each side
    won_a, won_b, equal = (int(x) for x in cells[4].split(" / "))
    assert won_a + won_b + equal == 1000 and won_a > 0 and won_b > 0
    # the same numbers on each condition (the same gold), and no per-dialogue verdict
    api = client.get(
        f"/api/v1/phases/{phase.pk}/pairwise/", {"a": ids["AuGPT team"], "b": ids["LABES team"]}
    ).json()
    assert [c["key"] for c in api["conditions"]] == list(KEYS)
    for found in api["conditions"]:
        assert found["difference"] == pytest.approx(expected["difference"])
        assert [found["low"], found["high"]] == pytest.approx(expected["ci"])
        assert found["p_value"] == pytest.approx(expected["p_value"])
        assert (found["wins_a"], found["wins_b"], found["ties"]) == (won_a, won_b, equal)
    assert "turns" not in response.text and "mul0789" not in response.text
    assert "turns" not in json.dumps(api) and "mul0789" not in json.dumps(api)
    # a submission that is not on the board cannot be asked for
    refused = client.get(url, {"a": ids["AuGPT team"], "b": 999999})
    assert refused.status_code == 400 and "Pick two entries" in refused.text


def test_robustness_is_each_entrys_change_with_the_scorers_paired_interval(client, tmp_path):
    """Four one-turn dialogues: the team is right on all four on TTS-Verbatim and on two on
    Human-Paraphrased, a change of 100.00 to 50.00, -50.00 points (by hand); the interval and
    p-value are ``python -m scoring compare``'s of the two files (with the challenge's 200
    resamples), the sign turned."""
    gold = {f"d{i}": [{"hotel": {"area": "north"}}] for i in range(4)}
    worse = {**gold, "d0": [{"hotel": {"area": "south"}}], "d1": [{"hotel": {"area": "east"}}]}
    raw = json.dumps(gold).encode()
    phase = phase_with_references(raw, keys=("tts-verbatim", "human-paraphrased"))
    team = approved_team(phase)
    submission = services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files={
            **uploads(gold, keys=("tts-verbatim",)),
            **uploads(worse, keys=("human-paraphrased",)),
        },
        method_name="run",
        enqueue=False,
    )
    assert services.run_scoring(submission.pk) == "scored"
    built(phase)  # as the board's worker builds the boards after the scoring
    for name, data in (("gold.json", gold), ("tts.json", gold), ("hp.json", worse)):
        (tmp_path / name).write_text(json.dumps(data))
    done = subprocess.run(
        [sys.executable, "-m", "scoring", "compare", "--gold", str(tmp_path / "gold.json"),
         "--pred", str(tmp_path / "tts.json"), "--pred", str(tmp_path / "hp.json"),
         "--bootstrap", "200", "--json"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    expected = json.loads(done.stdout)["paired"]["jga"]
    assert f"{expected['difference']:.2f}" == "50.00"

    page = client.get(reverse("rankings:robustness", args=[phase.challenge.slug, phase.slug]))
    assert page.status_code == 200
    cell = re.search(r'<td data-condition="human-paraphrased">(.*?)</td>', page.text).group(1)
    low, high = expected["ci"]
    assert cell == (
        f"\u221250.00 [{score_signed(-high)}, {score_signed(-low)}], p = {expected['p_value']:.4f}"
    )
    assert "<td>100.00</td>" in page.text
    assert 'id="chart-changes" data-chart' in page.text
    api = client.get(f"/api/v1/phases/{phase.pk}/robustness/").json()
    (entry,) = api["entries"]
    (change,) = entry["changes"]
    assert change["change"] == pytest.approx(-50.0)
    assert [change["low"], change["high"]] == pytest.approx([-high, -low])
    assert change["p_value"] == pytest.approx(expected["p_value"])
    # no dialogue's id, as a word of its own (never the letters of a hash or an asset's name)
    assert not re.search(r"\bd0\b", page.text) and not re.search(r"\bd0\b", json.dumps(api))
    # and in the reader export
    export = client.get(reverse("rankings:export-json", args=[phase.challenge.slug, phase.slug]))
    assert export.json()["robustness"]["entries"] == api["entries"]


def test_the_cross_team_slot_ranking_is_the_sum_of_the_three_teams_counts(three_teams, client):
    """Worked out here from the three Results' own per-slot and per-domain counts: per slot
    the substitutions, deletions and insertions summed over the teams, ranked."""
    from leaderboard.submissions.models import Result

    phase = three_teams
    results = Result.objects.filter(
        submission__phase=phase, condition__key="human-paraphrased", current=True
    )
    assert results.count() == 3
    errors: dict[str, int] = {}
    refs: dict[str, int] = {}
    wrong_turns: dict[str, int] = {}
    for result in results:
        details = result.breakdown["details"]
        for slot, n in details["per_slot"].items():
            if n["n_ref"]:
                errors[slot] = errors.get(slot, 0) + n["sub"] + n["del"] + n["ins"]
                refs[slot] = refs.get(slot, 0) + n["n_ref"]
        for domain, n in details["per_domain"].items():
            wrong_turns[domain] = wrong_turns.get(domain, 0) + n["turns"] - n["correct"]
    by_hand = sorted(errors, key=lambda s: (-errors[s], s))
    total = sum(errors.values())

    api = client.get(f"/api/v1/phases/{phase.pk}/errors/").json()
    (found,) = [c for c in api["conditions"] if c["key"] == "human-paraphrased"]
    assert found["entries"] == 3
    assert [s["name"] for s in found["slots"]] == by_hand
    assert [s["errors"] for s in found["slots"]] == [errors[s] for s in by_hand]
    top = found["slots"][0]
    assert top["share"] == pytest.approx(100 * errors[by_hand[0]] / total)
    assert top["rate"] == pytest.approx(100 * errors[by_hand[0]] / refs[by_hand[0]])
    assert [d["name"] for d in found["domains"]] == sorted(
        wrong_turns, key=lambda d: (-wrong_turns[d], d)
    )
    # the same gold and files on every condition: the same rates on each
    rates = api["rates"][by_hand[0]]
    assert set(rates) == set(KEYS) and len({round(v, 6) for v in rates.values()}) == 1

    # the API says which board it is on; the export, the same analysis of the public board
    assert (api.pop("board"), api.pop("snapshot")) == ("public", None)
    export = client.get(reverse("rankings:export-json", args=[phase.challenge.slug, phase.slug]))
    assert export.json()["errors"] == api
    page = client.get(reverse("rankings:errors", args=[phase.challenge.slug, phase.slug]))
    assert page.status_code == 200
    table = re.search(
        r'<table class="slot-shares" data-condition="human-paraphrased">(.*?)</table>',
        page.text,
        re.S,
    ).group(1)
    assert re.findall(r'<th scope="row">([^<]+)</th>', table) == by_hand
    # no reference value reaches the page: the gold's values (e.g. a hotel name) are absent
    assert "cambridge" not in page.text.lower() and "guesthouse" not in page.text.lower()


def test_errors_of_a_public_split_phase_are_for_organisers_only(db):
    """A public phase with a split: the per-slot counts are on the whole reference, which
    mixes in the private part, so readers do not get them (after the reveal neither: see
    test_analyses_of_a_snapshot)."""
    from tests.leaderboard.web import log_in

    gold = json.dumps({f"d{i}": [{"hotel": {"area": "north"}}] for i in range(6)}).encode()
    phase = phase_with_references(gold, keys=("tts-verbatim",), split_fraction=0.5, split_seed=1)
    assert phase.has_split and phase.results_visibility == Phase.Visibility.PUBLIC
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    staff = Client()
    log_in(staff, organiser)
    paths = [
        reverse("rankings:errors", args=[phase.challenge.slug, phase.slug]),
        f"/api/v1/phases/{phase.pk}/errors/",
    ]
    for path in paths:
        assert Client().get(path).status_code == 404, path
        assert staff.get(path).status_code == 200, path
    export = reverse("rankings:export-json", args=[phase.challenge.slug, phase.slug])
    assert Client().get(export).json()["errors"] is None
    assert staff.get(export).json()["errors"] is not None
    board = Client().get(reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug]))
    assert "errors across teams" not in board.text and "compare two entries" in board.text


def test_a_rank_group_is_spelled_with_an_en_dash_in_markdown_and_two_hyphens_in_latex(
    three_teams,
):
    import dataclasses

    board = leaderboard(three_teams, "public")
    tied = []
    for condition in board.conditions:
        rows = [dataclasses.replace(r, group="1\u20132") for r in condition.rows]
        tied.append(dataclasses.replace(condition, rows=rows))
    board = dataclasses.replace(board, conditions=tied)
    assert "<sup>1\u20132</sup>" in render(board, "markdown")
    assert "<sup>1-2</sup>" not in render(board, "markdown")
    assert "\\textsuperscript{1--2}" in render(board, "latex")
