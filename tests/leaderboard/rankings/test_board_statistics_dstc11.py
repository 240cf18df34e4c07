"""Rank intervals, the detectable difference and the shake-up on the DSTC11 test gold, against an
independent computation written here, and on the page, the API and the exports.

Five teams on a public phase split in halves, two conditions with the same gold (so each
team has the same numbers on both, and the overview's means are the conditions' own):
AuGPT, DAMD and LABES (their missing turns scored empty: the challenge's ``missing: empty``),
a team that submits AuGPT's file again (identical to AuGPT: the two share their ranks in every
resample), and a team whose file is AuGPT's with the first half of the dialogues replaced by
the gold (clearly better: first in every resample). After the phase closes, the organiser
reveals its final ranking (every team's one submission, on the private part).

The independent computation reads each Result's per-turn verdicts (the scorer's JSON, not the
statistics the boards read), splits the dialogues by the documented rule (the first eight
bytes of sha256("<seed>:<id>") below the fraction), draws the resamples as docs/scoring.md
says (dialogue j of resample b is ``floor(r * n / 2**64)``, ``r`` raw value ``b * n + j`` of
``PCG64(seed)``, over a part's dialogues in the reference's order), recomputes every entry's
JGA on every resample in a plain loop, ranks by counting, and takes scipy's Kendall's tau,
Spearman's rho and normal quantiles.

The scoring (5 teams x 2 conditions of 7,372 turns) is done once for the module. (These five
systems rank the same on both parts in nearly every resample, so the shake-up's correlations
are 1 and their intervals a point; tests/leaderboard/organiser/test_shakeup.py checks the
intervals of a shake-up where the parts disagree.)
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import json
import math
from unittest import mock

import numpy as np
import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from scipy import stats as scipy_stats

from leaderboard.challenges.models import Challenge, Phase
from leaderboard.rankings.snapshots import reveal
from leaderboard.submissions import services
from leaderboard.submissions.models import Result
from leaderboard.teams.models import Team
from tests.leaderboard.boards import built, leaderboard
from tests.leaderboard.factories import (
    UserFactory,
    approved_team,
    phase_with_references,
    uploads,
    with_second_factor,
)
from tests.scoring.helpers import resample_indices

pytestmark = pytest.mark.django_db

KEYS = ("tts-verbatim", "human-verbatim")
SEED, N_BOOT, LEVEL = 12345, 200, 0.95
SPLIT_SEED, FRACTION = 31, 0.5
TEAMS = ("AuGPT", "DAMD", "LABES", "AuGPT again", "Half gold")


def _better(gold: dict, augpt: dict) -> dict:
    """AuGPT's predictions with the first half of the gold's dialogues right."""
    better = dict(augpt)
    for dialogue in list(gold)[: len(gold) // 2]:
        key = next(k for k in augpt if k.lower().removesuffix(".json") == dialogue.lower())
        better[key] = [{"state": state} for state in gold[dialogue]]
    return better


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, fixtures_dir):
    """The phase scored, built, closed and revealed; what the tests compare."""
    gold_bytes = (fixtures_dir / "dstc11" / "test-dstc11.gold.json").read_bytes()
    files = {
        name: (fixtures_dir / "mwzeval-predictions" / f"{name}.json").read_bytes()
        for name in ("augpt", "damd", "labes")
    }
    gold = json.loads(gold_bytes)
    files["better"] = json.dumps(_better(gold, json.loads(files["augpt"]))).encode()
    sources = dict(zip(TEAMS, ("augpt", "damd", "labes", "augpt", "better"), strict=True))
    with django_db_blocker.unblock(), mock.patch("leaderboard.rankings.builds.send"):
        phase = phase_with_references(
            gold_bytes, keys=KEYS, split_fraction=FRACTION, split_seed=SPLIT_SEED
        )
        Challenge.objects.filter(pk=phase.challenge_id).update(
            scorer_options={"missing": "empty", "n_boot": N_BOOT, "seed": SEED}
        )
        phase = Phase.objects.select_related("challenge").get(pk=phase.pk)
        organiser = UserFactory()
        phase.challenge.organisers.add(with_second_factor(organiser))
        submissions = {}
        for name, source in sources.items():
            team = approved_team(phase)
            Team.objects.filter(pk=team.pk).update(name=name)
            submission = services.submit(
                team=team,
                phase=phase,
                user=team.created_by,
                files=uploads(files[source], KEYS),
                method_name=f"{name} run",
                enqueue=False,
            )
            assert services.run_scoring(submission.pk) == "scored"
            submissions[name] = submission.pk
        phase = built(phase)
        public = leaderboard(phase, "public")
        now = timezone.now()
        Phase.objects.filter(pk=phase.pk).update(
            opens_at=now - dt.timedelta(days=3), closes_at=now - dt.timedelta(minutes=1)
        )
        phase = built(Phase.objects.select_related("challenge").get(pk=phase.pk))
        snapshot = reveal(phase, organiser)
        phase = built(Phase.objects.select_related("challenge").get(pk=phase.pk))
        verdicts = {
            (r.submission_id, r.condition.key): (r.dialogues["ids"], r.dialogues["turns"])
            for r in Result.objects.filter(submission__phase=phase, current=True).select_related(
                "condition"
            )
        }
        yield {
            "phase": phase,
            "public": public,
            "snapshot": snapshot,
            "submissions": submissions,
            "verdicts": verdicts,
        }
        challenge = phase.challenge
        users = [t.created_by_id for t in Team.objects.filter(participations__challenge=challenge)]
        # Results are evidence nothing deletes in passing: they go first (as ``erase`` does)
        Result.objects.filter(submission__phase__challenge=challenge).delete()
        Team.objects.filter(participations__challenge=challenge).delete()
        challenge.delete()
        type(organiser).objects.filter(pk__in=[*users, organiser.pk]).delete()


# --- the independent computation ------------------------------------------------------------


def _public(dialogue: str) -> bool:
    digest = hashlib.sha256(f"{SPLIT_SEED}:{dialogue}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < FRACTION


def _counts(world, name: str, key: str, part: str) -> tuple[list[int], list[int]]:
    """(turns right, turns) per dialogue of ``part``, in the reference's order."""
    ids, turns = world["verdicts"][(world["submissions"][name], key)]
    kept = [t for d, t in zip(ids, turns, strict=True) if _public(d) == (part == "public")]
    return [t.count("1") for t in kept], [len(t) for t in kept]


def _resampled(world, names, key: str, part: str) -> np.ndarray:
    """(B x entries): each entry's JGA on each resample of ``part``'s dialogues, by a loop."""
    counts = [_counts(world, name, key, part) for name in names]
    n = len(counts[0][0])
    picks = resample_indices(n, N_BOOT, SEED)
    out = np.empty((N_BOOT, len(names)))
    for b, row in enumerate(picks):
        for e, (right, turns) in enumerate(counts):
            out[b, e] = 100 * sum(right[i] for i in row) / sum(turns[i] for i in row)
    return out


def _point(world, name: str, key: str, part: str) -> float:
    right, turns = _counts(world, name, key, part)
    return 100 * sum(right) / sum(turns)


def _intervals(values: np.ndarray) -> list[tuple[int, int]]:
    """Best rank: 1 + the entries strictly better; worst: the entries at least as good; the
    interval: the ceil(0.025 B)-th smallest best rank, the ceil(0.975 B)-th smallest worst."""
    best = [[1 + sum(o > v for o in row) for v in row] for row in values]
    worst = [[sum(o >= v for o in row) for v in row] for row in values]
    low_at, high_at = math.ceil(N_BOOT * 0.025) - 1, math.ceil(N_BOOT * 0.975) - 1
    return [
        (sorted(r[e] for r in best)[low_at], sorted(r[e] for r in worst)[high_at])
        for e in range(values.shape[1])
    ]


def _names(world, rows) -> list[str]:
    by_id = {pk: name for name, pk in world["submissions"].items()}
    return [by_id[r.submission_id] for r in rows]


def _detectable(values: np.ndarray) -> float:
    """(z_0.975 + z_0.8) times the median standard error (n - 1) of the adjacent entries'
    resampled differences, identical neighbours left out."""
    errors = [np.std(values[:, i] - values[:, i + 1], ddof=1) for i in range(values.shape[1] - 1)]
    z = scipy_stats.norm.ppf(0.975) + scipy_stats.norm.ppf(0.8)
    return float(z * np.median([e for e in errors if e > 0]))


# --- the board against it -------------------------------------------------------------------


@pytest.mark.parametrize("part", ["public", "private"])
def test_rank_intervals_and_the_detectable_difference_equal_the_independent_computation(
    world, part
):
    board = world["public"] if part == "public" else leaderboard(world["phase"], "private")
    for condition in board.conditions:
        names = _names(world, condition.rows)
        values = _resampled(world, names, condition.key, part)
        found = [(r.rank_low, r.rank_high) for r in condition.rows]
        assert found == _intervals(values), (part, condition.key)
        assert condition.detectable == pytest.approx(_detectable(values), rel=1e-9)
    # by construction: the half-gold team first in every resample; the two AuGPT teams tie
    rows = {name: row for name, row in zip(names, condition.rows, strict=True)}
    assert (rows["Half gold"].rank_low, rows["Half gold"].rank_high) == (1, 1)
    twins = (rows["AuGPT"].rank_low, rows["AuGPT"].rank_high)
    assert twins == (rows["AuGPT again"].rank_low, rows["AuGPT again"].rank_high)
    assert twins[1] - twins[0] >= 1
    # the overview: by the mean over the two conditions, resample by resample (the same draws
    # on both, as they have the same dialogues)
    names = _names(world, board.overview)
    means = np.mean([_resampled(world, names, key, part) for key in KEYS], axis=0)
    assert [(r.rank_low, r.rank_high) for r in board.overview] == _intervals(means)
    assert all(r.submissions == 1 for c in board.conditions for r in c.rows)


def test_the_shake_up_equals_scipys_correlations_over_the_same_resamples(world):
    board = leaderboard(world["phase"], "private")
    assert [s.key for s in board.shakeups] == ["overview", *KEYS]
    rankings = {"overview": board.overview, **{c.key: c.rows for c in board.conditions}}
    for found in board.shakeups:
        key = found.key if found.key != "overview" else KEYS[0]  # the conditions are the same
        rows = rankings[found.key]
        names = _names(world, rows)
        public = [_point(world, n, key, "public") for n in names]
        private = [_point(world, n, key, "private") for n in names]
        assert [m.public for m in found.moves] == pytest.approx(public)
        assert [m.private for m in found.moves] == pytest.approx(private)
        ranks = [1 + sum(p > v for p in public) for v in public]  # equal scores share
        assert [m.public_rank for m in found.moves] == ranks
        assert [m.rank_change for m in found.moves] == [
            r - row.rank for r, row in zip(ranks, rows, strict=True)
        ]
        assert found.mean_shift == pytest.approx(np.mean(np.subtract(private, public)))
        tau = scipy_stats.kendalltau(public, private).statistic
        rho = scipy_stats.spearmanr(public, private).statistic
        assert found.tau == pytest.approx(tau, abs=1e-12)
        assert found.rho == pytest.approx(rho, abs=1e-12)
        pub = _resampled(world, names, key, "public")
        priv = _resampled(world, names, key, "private")
        taus = [scipy_stats.kendalltau(a, b).statistic for a, b in zip(pub, priv, strict=True)]
        rhos = [scipy_stats.spearmanr(a, b).statistic for a, b in zip(pub, priv, strict=True)]
        for (low, high), samples in (
            ((found.tau_low, found.tau_high), taus),
            ((found.rho_low, found.rho_high), rhos),
        ):
            finite = [s for s in samples if not math.isnan(s)]
            expected = np.percentile(finite, [2.5, 97.5])
            assert (low, high) == pytest.approx(tuple(expected), abs=1e-12)


# --- on the page, in the API and the exports ------------------------------------------------


def _interval_text(row) -> str:
    low, high = row.rank_low, row.rank_high
    span = str(low) if low == high else f"{low}\u2013{high}"
    return f'{row.rank} <span class="rank-ci">[{span}]</span>'


def test_each_appears_on_the_pages_the_api_and_the_exports(world):
    phase, board = world["phase"], world["public"]
    client = Client()
    slug = phase.challenge.slug
    page = client.get(reverse("rankings:leaderboard", args=[slug, phase.slug])).text
    for condition in board.conditions:
        for row in condition.rows:
            assert _interval_text(row) in page
        sentence = f"Differences under {condition.detectable:.2f} JGA points are not resolvable"
        assert sentence in page
    snapshot = world["snapshot"]
    final = leaderboard(phase, "private")
    shown = client.get(reverse("rankings:snapshot", args=[slug, phase.slug, snapshot.number]))
    text = shown.text
    for found in final.shakeups:
        tau = f"{found.tau:.2f}".replace("-", "\u2212")
        assert tau in text and 'id="shakeup-table"' in text and 'id="chart-shakeup"' in text
    charts = json.loads(text.split('id="chart-data" type="application/json">')[1].split("<")[0])
    # one line per entry, from its public rank to its final one (the two AuGPT teams share)
    lines = charts["chart-shakeup"]["data"]
    assert [line["y"] for line in lines] == [
        [m.public_rank, m.private_rank] for m in final.shakeups[0].moves
    ]
    assert [line["y"][1] for line in lines] == [r.rank for r in final.overview]

    api = client.get(f"/api/v1/phases/{phase.pk}/leaderboard/", {"condition": KEYS[0]}).json()
    assert api["detectable_difference"][KEYS[0]]["value"] == pytest.approx(
        board.conditions[0].detectable
    )
    assert [r["rank_interval"] for r in api["results"]] == [
        [r.rank_low, r.rank_high] for r in board.conditions[0].rows
    ]
    assert [r["submissions"] for r in api["results"]] == [1] * 5
    overview = client.get(f"/api/v1/phases/{phase.pk}/leaderboard/").json()
    assert [r["rank_interval"] for r in overview["results"]] == [
        [r.rank_low, r.rank_high] for r in board.overview
    ]
    shakeup = client.get(f"/api/v1/phases/{phase.pk}/shakeup/").json()
    assert shakeup["snapshot"] == snapshot.number
    assert [r["kendall_tau"] for r in shakeup["rankings"]] == pytest.approx(
        [s.tau for s in final.shakeups]
    )
    first = shakeup["rankings"][0]["entries"][0]
    assert first["team"]["name"] == final.overview[0].team_name
    assert first["rank_change"] == final.shakeups[0].moves[0].rank_change

    data = client.get(reverse("rankings:export-json", args=[slug, phase.slug])).json()
    rows = data["public"]["conditions"][0]["rows"]
    assert [(r["rank_low"], r["rank_high"]) for r in rows] == [
        (r.rank_low, r.rank_high) for r in board.conditions[0].rows
    ]
    assert data["public"]["conditions"][0]["detectable"] == pytest.approx(
        board.conditions[0].detectable
    )
    assert data["final"]["shakeups"][0]["tau"] == pytest.approx(final.shakeups[0].tau)
    exported = csv.DictReader(
        io.StringIO(client.get(reverse("rankings:export-csv", args=[slug, phase.slug])).text)
    )
    lines = list(exported)
    taus = [
        line for line in lines if line["board"] == "final" and line["statistic"] == "kendall_tau"
    ]
    assert [float(line["statistic_value"]) for line in taus] == pytest.approx(
        [s.tau for s in final.shakeups], abs=5e-5
    )
    ranked = [line for line in lines if line["board"] == "public" and line["condition"] == KEYS[0]
              and not line["statistic"]]  # fmt: skip
    assert [(int(line["rank_low"]), int(line["rank_high"])) for line in ranked] == [
        (r.rank_low, r.rank_high) for r in board.conditions[0].rows
    ]
