"""The pairwise comparison, the tested robustness and the cross-team errors on a published
snapshot of a hidden phase: nothing before the reveal but for organisers; after it, the
snapshot's entries under the labels it froze, on the private part it ranks.

A hidden phase with a split (seed 7, fraction 0.5: the README's rule, recomputed in
``organiser/construction.py``), two conditions, four public and four private one-turn
dialogues whose gold is ``hotel-area=north``; a wrong turn predicts ``south``. Worked by hand:

=======  ====================  ======================  =====================
team     public (TTS and HP)   private TTS             private HP
=======  ====================  ======================  =====================
A        4/4 = 100.00          q1-q4 right: 100.00     q1, q2 right: 50.00
B        p1, p2 right: 50.00   q3 right: 25.00         q3 right: 25.00
=======  ====================  ======================  =====================

A against B on the private part of HP: 50.00 - 25.00 = +25.00; A alone right on q1 and q2,
B alone on q3, both wrong on q4: wins 2 / 1 / 1. On TTS: +75.00, wins 3 / 0 / 1. On the
public part (the live public board) the difference would be +50.00 with wins 2 / 0 / 2 on
both conditions. A's change from TTS to HP on the private part: -50.00; B's: 0.00. The
intervals and p-values are ``python -m scoring compare``'s on the private dialogues' files.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from django.test import Client
from django.urls import reverse

from leaderboard.challenges.models import Phase
from leaderboard.challenges.services import add_reference
from leaderboard.numbers import signed
from leaderboard.rankings.snapshots import reveal
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from leaderboard.teams.models import Team
from tests.leaderboard import task_data as td
from tests.leaderboard.boards import built
from tests.leaderboard.factories import (
    ChallengeFactory,
    ConditionFactory,
    PhaseFactory,
    UserFactory,
    approved_team,
    phase_with_references,
    upload,
    with_second_factor,
)
from tests.leaderboard.organiser.conftest import close
from tests.leaderboard.organiser.construction import FRACTION, SEED, _public
from tests.leaderboard.web import log_in

pytestmark = pytest.mark.django_db

KEYS = ("tts-verbatim", "human-paraphrased")
SECRET = "Quillfeather Lab"


def _ids() -> tuple[list[str], list[str]]:
    public: list[str] = []
    private: list[str] = []
    n = 0
    while len(public) < 4 or len(private) < 4:
        name = f"mul{n:04d}"
        n += 1
        (public if _public(name) else private).append(name)
    return public[:4], private[:4]


PUBLIC, PRIVATE = _ids()
#: every dialogue, in the order of the gold file
ORDER = sorted(PUBLIC + PRIVATE)
GOLD = {d: [{"hotel": {"area": "north"}}] for d in ORDER}


def prediction(right: set[str]) -> dict:
    return {d: [{"hotel": {"area": "north" if d in right else "south"}}] for d in ORDER}


p1, p2, p3, p4 = PUBLIC
q1, q2, q3, q4 = PRIVATE
RUNS = {
    "A": {"tts-verbatim": set(ORDER), "human-paraphrased": {*PUBLIC, q1, q2}},
    "B": {"tts-verbatim": {p1, p2, q3}, "human-paraphrased": {p1, p2, q3}},
}


def _private_file(path, data: dict) -> str:
    path.write_text(json.dumps({d: data[d] for d in ORDER if d in PRIVATE}))
    return str(path)


def scorer_compare(tmp_path, first: dict, second: dict) -> dict:
    """``python -m scoring compare`` of two predictions on the private dialogues only."""
    gold = _private_file(tmp_path / "gold.json", GOLD)
    a = _private_file(tmp_path / "a.json", first)
    b = _private_file(tmp_path / "b.json", second)
    done = subprocess.run(
        [sys.executable, "-m", "scoring", "compare", "--gold", gold, "--pred", a, "--pred", b,
         "--bootstrap", "200", "--seed", "12345", "--json"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)["paired"]["jga"]


def hidden_phase(**kwargs) -> tuple[Phase, dict[str, Team], dict[str, int], Client, Client]:
    """The phase, its teams (A anonymous), their submissions, and a member's and an
    organiser's logged-in clients."""
    phase = phase_with_references(
        json.dumps(GOLD).encode(),
        keys=KEYS,
        results_visibility=Phase.Visibility.HIDDEN,
        **kwargs,
    )
    teams: dict[str, Team] = {}
    runs: dict[str, int] = {}
    for name, right in RUNS.items():
        team = approved_team(phase)
        teams[name] = team
        submission = services.submit(
            team=team,
            phase=phase,
            user=team.created_by,
            files={k: upload(prediction(right[k]), f"{k}.json") for k in KEYS},
            method_name=f"run {name}",
            enqueue=False,
        )
        assert services.run_scoring(submission.pk) == "scored"
        runs[name] = submission.pk
    Team.objects.filter(pk=teams["A"].pk).update(name=SECRET, anonymous=True)
    Phase.changed(phase.pk)  # as the admin does for its edits
    phase = built(phase)  # and the board's worker once the edit has committed
    member, staff = Client(), Client()
    log_in(member, teams["B"].created_by)
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    log_in(staff, organiser)
    staff.user = organiser  # type: ignore[attr-defined]
    return phase, teams, runs, member, staff


def _paths(phase: Phase, runs: dict[str, int]) -> list[tuple[str, dict]]:
    slug = (phase.challenge.slug, phase.slug)
    pair = {"a": runs["A"], "b": runs["B"]}
    return [
        (reverse("rankings:pairwise", args=slug), pair),
        (f"/api/v1/phases/{phase.pk}/pairwise/", pair),
        (reverse("rankings:robustness", args=slug), {}),
        (f"/api/v1/phases/{phase.pk}/robustness/", {}),
        (reverse("rankings:errors", args=slug), {}),
        (f"/api/v1/phases/{phase.pk}/errors/", {}),
    ]


BOARDS = ({}, {"board": "public"}, {"board": "final"}, {"board": "final", "snapshot": 1})


def _cells(html: str, key: str) -> list[str]:
    row = re.search(rf'<tr data-condition="{key}">(.*?)</tr>', html, re.S).group(1)
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td>(.*?)</td>", row, re.S)]


def test_before_the_reveal_only_organisers_have_the_analyses(db):
    phase, _, runs, member, staff = hidden_phase(split_fraction=FRACTION, split_seed=SEED)
    for path, query in _paths(phase, runs):
        for board in BOARDS:
            for reader in (Client(), member):
                assert reader.get(path, {**query, **board}).status_code == 404, (path, board)
        # organisers: the live public board (no snapshot exists yet)
        assert staff.get(path, query).status_code == 200, path
        assert staff.get(path, {**query, "board": "final"}).status_code == 404, path
    page = staff.get(reverse("rankings:pairwise", args=[phase.challenge.slug, phase.slug]))
    assert "On the live public leaderboard, ranked on the public part" in page.text
    export = reverse("rankings:export-json", args=[phase.challenge.slug, phase.slug])
    # readers get no export of a hidden board (the page's "hidden" as a 404, no empty file)
    assert Client().get(export).status_code == 404
    found = staff.get(export).json()
    assert found["final"] is None and found["robustness"] is not None


def test_after_the_reveal_pairwise_and_robustness_are_the_snapshots_on_the_private_part(
    db, tmp_path
):
    phase, teams, runs, member, staff = hidden_phase(split_fraction=FRACTION, split_seed=SEED)
    close(phase)
    reveal(phase, staff.user)
    slug = (phase.challenge.slug, phase.slug)
    label = Team.objects.get(pk=teams["A"].pk).anonymous_label
    a_files = {k: prediction(v) for k, v in RUNS["A"].items()}
    b_files = {k: prediction(v) for k, v in RUNS["B"].items()}
    hp = scorer_compare(tmp_path, a_files["human-paraphrased"], b_files["human-paraphrased"])
    assert f"{hp['difference']:.2f}" == "25.00"  # the hand-worked figure, from the scorer too

    for reader in (Client(), member, staff):
        # the default and the explicit snapshot give the same page
        for query in ({}, {"board": "final"}, {"board": "final", "snapshot": 1}):
            page = reader.get(
                reverse("rankings:pairwise", args=slug),
                {"a": runs["A"], "b": runs["B"], **query},
            )
            assert page.status_code == 200
            assert "On the published final ranking" in page.text
            low, high = hp["ci"]
            assert _cells(page.text, "human-paraphrased") == [
                "50.00",
                "25.00",
                f"+25.00 [{signed(low)}, {signed(high)}]",
                f"{hp['p_value']:.4f}" + (" (significant)" if hp["significant"] else ""),
                "2 / 1 / 1",
            ]
            tts = _cells(page.text, "tts-verbatim")
            assert tts[:2] == ["100.00", "25.00"] and tts[2].startswith("+75.00 [")
            assert tts[4] == "3 / 0 / 1"
            # the snapshot's label of the anonymous team, never its name
            assert label in page.text and SECRET not in page.text
            # the form asks the same snapshot again
            assert '<input type="hidden" name="board" value="final">' in page.text

        api = reader.get(
            f"/api/v1/phases/{phase.pk}/pairwise/", {"a": runs["A"], "b": runs["B"]}
        ).json()
        assert (api["board"], api["snapshot"]) == ("final", 1)
        (found,) = [c for c in api["conditions"] if c["key"] == "human-paraphrased"]
        assert (found["a"], found["b"]) == pytest.approx((50.0, 25.0))
        assert found["difference"] == pytest.approx(25.0)
        assert [found["low"], found["high"]] == pytest.approx(hp["ci"])
        assert found["p_value"] == pytest.approx(hp["p_value"])
        assert (found["wins_a"], found["wins_b"], found["ties"]) == (2, 1, 1)
        assert not any(d in json.dumps(api) for d in ORDER)

        # the live public board is still there on request: the public part's figures
        public = reader.get(
            f"/api/v1/phases/{phase.pk}/pairwise/",
            {"a": runs["A"], "b": runs["B"], "board": "public"},
        ).json()
        assert (public["board"], public["snapshot"]) == ("public", None)
        (found,) = [c for c in public["conditions"] if c["key"] == "human-paraphrased"]
        assert found["difference"] == pytest.approx(50.0)
        assert (found["wins_a"], found["wins_b"], found["ties"]) == (2, 0, 2)

    # robustness: A's change from TTS to HP on the private part, the scorer's interval turned
    change = scorer_compare(tmp_path, a_files["tts-verbatim"], a_files["human-paraphrased"])
    low, high = change["ci"]
    api = Client().get(f"/api/v1/phases/{phase.pk}/robustness/").json()
    assert (api["board"], api["snapshot"]) == ("final", 1)
    entries = {e["submission_id"]: e for e in api["entries"]}
    assert entries[runs["A"]]["team_name"] == label
    assert entries[runs["A"]]["first"] == pytest.approx(100.0)
    (a_change,) = entries[runs["A"]]["changes"]
    assert a_change["change"] == pytest.approx(-50.0)
    assert [a_change["low"], a_change["high"]] == pytest.approx([-high, -low])
    assert a_change["p_value"] == pytest.approx(change["p_value"])
    assert entries[runs["B"]]["first"] == pytest.approx(25.0)
    assert entries[runs["B"]]["changes"][0]["change"] == pytest.approx(0.0)
    page = Client().get(reverse("rankings:robustness", args=slug))
    cell = re.search(
        rf'<tr data-submission="{runs["A"]}">.*?<td data-condition="human-paraphrased">(.*?)</td>',
        page.text,
        re.S,
    ).group(1)
    assert cell == f"\u221250.00 [{signed(-high)}, {signed(-low)}], p = {change['p_value']:.4f}"
    assert label in page.text and SECRET not in page.text
    # on the public board, A loses nothing from TTS to HP (4/4 on both)
    public = Client().get(f"/api/v1/phases/{phase.pk}/robustness/", {"board": "public"}).json()
    (a_public,) = [e for e in public["entries"] if e["submission_id"] == runs["A"]]
    assert a_public["changes"][0]["change"] == pytest.approx(0.0)

    # the reader export: the snapshot's robustness, as the API gives it
    export = Client().get(reverse("rankings:export-json", args=slug)).json()
    assert export["final"]["robustness"]["entries"] == api["entries"]
    assert export["robustness"]["entries"] == public["entries"]
    assert SECRET not in json.dumps(export)
    # the snapshot's page links its analyses
    snapshot = Client().get(reverse("rankings:snapshot", args=[*slug, 1])).text
    pairwise = reverse("rankings:pairwise", args=slug)
    assert f'href="{pairwise}?board=final&amp;snapshot=1"' in snapshot


def test_errors_of_a_split_phase_stay_with_organisers_after_the_reveal(db):
    """The per-slot counts are on the whole reference: on a split phase they would mix the
    public part into the snapshot's private one (and give away, by subtraction, figures no
    board publishes), so readers never get them there."""
    phase, _, _, member, staff = hidden_phase(split_fraction=FRACTION, split_seed=SEED)
    close(phase)
    reveal(phase, staff.user)
    slug = (phase.challenge.slug, phase.slug)
    paths = [reverse("rankings:errors", args=slug), f"/api/v1/phases/{phase.pk}/errors/"]
    for path in paths:
        for board in BOARDS:
            for reader in (Client(), member):
                assert reader.get(path, board).status_code == 404, (path, board)
            assert staff.get(path, board).status_code == 200, (path, board)
    assert (
        Client().get(reverse("rankings:export-json", args=slug)).json()["final"]["errors"] is None
    )
    assert (
        "errors across teams"
        not in Client().get(reverse("rankings:snapshot", args=[*slug, 1])).text
    )
    assert "errors across teams" in staff.get(reverse("rankings:snapshot", args=[*slug, 1])).text
    page = staff.get(reverse("rankings:errors", args=slug)).text
    assert "snapshot 1" in page and "The counts are on the whole test set" in page


def test_errors_of_a_hidden_phase_without_a_split_are_the_snapshots_after_the_reveal(db):
    """Without a split the counts are on the part the snapshot ranks. B's final selection is
    its worse run (B1 as above); its better one (B2, every turn right) leads the live board.
    By hand, on HP: the snapshot's entries A and B1 get q3, q4 (A) and p3, p4, q1, q2, q4
    (B1) wrong: 7 substitutions of ``hotel-area`` over 2 x 8 values, a rate of 43.75, and
    7 wrong ``hotel`` turns of 16; on TTS, B1's 5 alone: 31.25. The live board's entries (A,
    B2) have 2 errors on HP: 12.50."""
    phase, teams, runs, member, staff = hidden_phase()
    better = services.submit(
        team=teams["B"],
        phase=phase,
        user=teams["B"].created_by,
        files={k: upload(GOLD, f"{k}.json") for k in KEYS},
        method_name="run B2",
        enqueue=False,
    )
    assert services.run_scoring(better.pk) == "scored"
    services.select_final(Submission.objects.get(pk=runs["B"]), teams["B"].created_by, True)
    phase = built(phase)  # as the board's worker builds the boards after these changes
    slug = (phase.challenge.slug, phase.slug)
    paths = [reverse("rankings:errors", args=slug), f"/api/v1/phases/{phase.pk}/errors/"]
    for path in paths:
        for board in BOARDS:
            for reader in (Client(), member):
                assert reader.get(path, board).status_code == 404, (path, board)
        assert staff.get(path).status_code == 200
    close(phase)
    reveal(phase, staff.user)
    for reader in (Client(), member, staff):
        api = reader.get(f"/api/v1/phases/{phase.pk}/errors/").json()
        assert (api["board"], api["snapshot"]) == ("final", 1)
        by_key = {c["key"]: c for c in api["conditions"]}
        (slot,) = by_key["human-paraphrased"]["slots"]
        assert (slot["name"], slot["errors"]) == ("hotel-area", 7)
        assert (slot["share"], slot["rate"]) == pytest.approx((100.0, 43.75))
        (domain,) = by_key["human-paraphrased"]["domains"]
        assert (domain["name"], domain["errors"], domain["rate"]) == pytest.approx(
            ("hotel", 7, 43.75)
        )
        assert by_key["tts-verbatim"]["slots"][0]["errors"] == 5
        assert api["rates"]["hotel-area"] == pytest.approx(
            {"tts-verbatim": 31.25, "human-paraphrased": 43.75}
        )
        public = reader.get(f"/api/v1/phases/{phase.pk}/errors/", {"board": "public"}).json()
        hp = next(c for c in public["conditions"] if c["key"] == "human-paraphrased")
        assert hp["slots"][0]["errors"] == 2 and hp["slots"][0]["rate"] == pytest.approx(12.5)
        page = reader.get(reverse("rankings:errors", args=slug))
        assert page.status_code == 200 and "snapshot 1" in page.text
        assert "north" not in page.text and "south" not in page.text
        export = reader.get(reverse("rankings:export-json", args=slug)).json()
        assert export["final"]["errors"]["rates"] == api["rates"]


@pytest.mark.parametrize("task", ["multiwoz22", "dvd"])
def test_the_other_tasks_analyses_on_a_snapshot(db, task):
    """The tiny references of ``task_data``, a perfect and a partial run (JGA 100.00 and
    66.67 by hand there) on a hidden phase: after the reveal, the pairwise comparison gives
    +33.33 with one dialogue won by the perfect run and one equal (MultiWOZ: d1 right in both,
    d2 wrong in the partial one; DVD: v1 half right in the partial one, v2 right in both);
    robustness needs two conditions and errors per-slot counts, which these tasks have not."""
    gold, files, perfect, partial = {
        "multiwoz22": (
            td.MWZ_GOLD,
            {"schema": (json.dumps(td.SCHEMA).encode(), "schema.json")},
            td.MWZ_PERFECT,
            td.MWZ_PARTIAL,
        ),
        "dvd": (td.DVD_GOLD, None, td.DVD_PERFECT, td.DVD_PARTIAL),
    }[task]
    challenge = ChallengeFactory(task=task, scorer_options=td.OPTIONS)
    phase = PhaseFactory(challenge=challenge, results_visibility=Phase.Visibility.HIDDEN)
    condition = ConditionFactory(phase=phase, key="test", label="Test set")
    add_reference(condition, json.dumps(gold).encode(), "gold.json", files)
    ids = []
    for prediction_data in (perfect, partial):
        team = approved_team(phase)
        submission = services.submit(
            team=team,
            phase=phase,
            user=team.created_by,
            files={"test": upload(prediction_data, "test.json")},
            method_name="run",
            enqueue=False,
        )
        assert services.run_scoring(submission.pk) == "scored"
        ids.append(submission.pk)
    phase = built(phase)  # as the board's worker builds the boards after the scorings
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    api = f"/api/v1/phases/{phase.pk}/"
    pair = {"a": ids[0], "b": ids[1]}
    assert Client().get(api + "pairwise/", pair).status_code == 404
    close(phase)
    reveal(phase, organiser)
    found = Client().get(api + "pairwise/", pair).json()
    assert (found["board"], found["snapshot"]) == ("final", 1)
    (row,) = found["conditions"]
    assert (f"{row['a']:.2f}", f"{row['b']:.2f}", f"{row['difference']:.2f}") == (
        "100.00",
        "66.67",
        "33.33",
    )
    assert (row["wins_a"], row["wins_b"], row["ties"]) == (1, 0, 1)
    assert Client().get(api + "robustness/").json()["entries"] == []
    errors = Client().get(api + "errors/").json()
    assert [(c["entries"], c["slots"], c["domains"]) for c in errors["conditions"]] == [(2, [], [])]
    slug = (phase.challenge.slug, phase.slug)
    for name in ("pairwise", "robustness", "errors"):
        assert Client().get(reverse(f"rankings:{name}", args=slug), pair).status_code == 200
