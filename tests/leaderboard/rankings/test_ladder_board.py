"""The Ladder as a phase option: the public board of a split phase shows each team's score as
the parameter-free Ladder gives it over its submissions in turn, the private board does not,
and a phase without a split cannot have it (config file and admin alike).

The public part here is four dialogues of 1, 1, 2 and 2 turns: the hand-worked sequence of
``tests/scoring/test_ladder.py`` (shown JGA 25, 50, 75, then 75 twice), made by one team's
five submissions. The split rule is recomputed from its documented sentence (docs/scoring.md:
a dialogue is public when the first eight bytes of sha256("<seed>:<id>") are below the
fraction), not imported."""

from __future__ import annotations

import hashlib
import json

import pytest

from leaderboard.challenges.admin import PhaseForm
from leaderboard.challenges.config import ConfigError, check_config
from leaderboard.submissions import services
from tests.leaderboard.boards import leaderboard
from tests.leaderboard.factories import approved_team, phase_with_references, upload

pytestmark = pytest.mark.django_db

SEED, FRACTION = 11, 0.5
PUBLIC_TURNS = (1, 1, 2, 2)
PRIVATE_TURNS = (2, 3)


def _public(dialogue: str) -> bool:
    digest = hashlib.sha256(f"{SEED}:{dialogue}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < FRACTION


def _ids() -> tuple[list[str], list[str]]:
    public: list[str] = []
    private: list[str] = []
    n = 0
    while len(public) < len(PUBLIC_TURNS) or len(private) < len(PRIVATE_TURNS):
        name = f"mul{n:04d}"
        n += 1
        (public if _public(name) else private).append(name)
    return public[: len(PUBLIC_TURNS)], private[: len(PRIVATE_TURNS)]


PUBLIC, PRIVATE = _ids()
TURNS = dict(zip(PUBLIC + PRIVATE, PUBLIC_TURNS + PRIVATE_TURNS, strict=True))
GOLD = {d: [{"hotel": {"area": "north"}} for _ in range(t)] for d, t in TURNS.items()}


def _prediction(public_right: tuple[int, ...], private_right: int) -> dict:
    """The first ``public_right[i]`` turns of public dialogue ``i`` right, and the first
    ``private_right`` turns of the private part."""
    right = {d: r for d, r in zip(PUBLIC, public_right, strict=True)}
    left = private_right
    for d in PRIVATE:
        right[d] = min(left, TURNS[d])
        left -= right[d]
    wrong = {"hotel": {"area": "south"}}
    return {d: [GOLD[d][t] if t < right[d] else wrong for t in range(TURNS[d])] for d in TURNS}


def _submit(phase, team, public_right, private_right, method):
    submission = services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files={"tts-verbatim": upload(_prediction(public_right, private_right))},
        method_name=method,
        enqueue=False,
    )
    assert services.run_scoring(submission.pk) == "scored"
    return submission


def test_the_public_board_shows_the_ladders_score_and_the_private_board_the_real_one():
    phase = phase_with_references(
        json.dumps(GOLD).encode(),
        keys=("tts-verbatim",),
        split_fraction=FRACTION,
        split_seed=SEED,
        ladder=True,
    )
    team = approved_team(phase)
    other = approved_team(phase)
    _submit(phase, other, (1, 1, 1, 1), 5, "other")  # JGA 66.67 on the public part: 66.67 -> 75
    sequence = [((1, 0, 1, 0), 0), ((1, 1, 1, 0), 1), ((1, 1, 2, 0), 2), ((1, 1, 2, 1), 3),
                ((1, 1, 1, 1), 4)]  # fmt: skip
    shown, methods = [], []
    runs = []
    for n, (public_right, private_right) in enumerate(sequence, start=1):
        runs.append(_submit(phase, team, public_right, private_right, f"run {n}"))
        board = leaderboard(phase)
        assert board.ladder
        (row,) = [r for r in board.conditions[0].rows if r.team_id == team.pk]
        shown.append(row.cells[0][0])
        methods.append(row.method_name)
        assert row.cells[0][1:] == (None, None)  # no interval: it would tell the real score
        assert row.submissions == n
    assert shown == [25.0, 50.0, 75.0, 75.0, 75.0]
    assert methods == ["run 1", "run 2", "run 3", "run 3", "run 3"]
    # the overview ranks the shown scores too; ties broken by the tie-breaker (SER), then time
    overview = {r.team_id: r for r in board.overview}
    assert overview[team.pk].means[0] == 75.0 and overview[team.pk].method_name == "run 3"
    # the private board ranks each team's final selection (its best public submission by its
    # own score, not the Ladder's: run 4, 83.33 on the public part) on the private part
    private = leaderboard(phase, "private")
    assert not private.ladder
    (mine,) = [r for r in private.conditions[0].rows if r.team_id == team.pk]
    assert mine.method_name == "run 4" and mine.cells[0][0] == pytest.approx(60.0)


def test_a_phase_without_a_split_cannot_use_the_ladder(tmp_path):
    (tmp_path / "gold.json").write_text(json.dumps(GOLD))
    config = {
        "challenge": {"slug": "ladder", "title": "Ladder", "task": "dstc11"},
        "phases": [
            {
                "name": "Test",
                "opens_at": "2026-01-01T00:00:00Z",
                "closes_at": "2027-01-01T00:00:00Z",
                "ladder": True,
                "conditions": [{"key": "tts-verbatim", "reference": "gold.json"}],
            }
        ],
    }
    with pytest.raises(ConfigError) as error:
        check_config(config, tmp_path)
    assert "phases[0].ladder: the Ladder ranks the public part of a split" in str(error.value)
    config["phases"][0]["split_fraction"] = 0.5
    check_config(config, tmp_path)  # with a split: accepted

    phase = phase_with_references(json.dumps(GOLD).encode(), keys=("tts-verbatim",))
    data = {
        f.name: getattr(phase, f.name)
        for f in phase._meta.concrete_fields
        if f.editable and not f.primary_key
    }
    data.update(challenge=phase.challenge_id, ladder=True, split_fraction=1.0)
    form = PhaseForm(data=data, instance=phase)
    assert not form.is_valid()
    assert "the Ladder ranks the public part of a split" in str(form.errors["ladder"])
    data["split_fraction"] = 0.5
    assert PhaseForm(data=data, instance=phase).is_valid(), PhaseForm(data=data).errors
