"""The stored form of a board (``rankings.serialised``, format 3): each entry's facts once, its
rows referring to them, encoded by ``Board.pack`` (orjson) and read back equal, for boards with
undefined values (a metric undefined for a team on a condition, an F1 column, no intervals) of
every task; a snapshot of format 2, as published before, still reads back."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
import zlib

import pytest
from django.core.serializers.json import DjangoJSONEncoder

from leaderboard.challenges.services import add_reference
from leaderboard.rankings.board import (
    Column,
    ConditionBoard,
    Leaderboard,
    Move,
    Shakeup,
)
from leaderboard.rankings.compute import compute
from leaderboard.rankings.models import Board
from leaderboard.rankings.serialised import FORMAT, expanded, from_data, serialise
from leaderboard.rankings.snapshots import fingerprint, publishable
from tests.leaderboard.factories import (
    KEYS,
    ChallengeFactory,
    ConditionFactory,
    PhaseFactory,
    approved_team,
)
from tests.leaderboard.task_data import (
    DVD_EMPTY,
    DVD_GOLD,
    DVD_PARTIAL,
    DVD_PERFECT,
    MWZ_EMPTY,
    MWZ_GOLD,
    MWZ_PARTIAL,
    MWZ_PERFECT,
    OPTIONS,
    SCHEMA,
    make_phase,
    submit_through_the_page,
)
from tests.leaderboard.web import GOLD, PREDICTION, scored_submission

pytestmark = pytest.mark.django_db

#: Every user turn of ``GOLD`` with nothing to track: JGA is defined (every turn), SER is not
#: (no reference slot to count errors against), so it has neither value nor interval.
NOTHING = {dialogue: [{} for _ in turns] for dialogue, turns in GOLD.items()}


def _stored(board: Leaderboard) -> Leaderboard:
    """``board`` as the worker stores it (``builds``) and the pages read it back
    (``boards``)."""
    data = serialise(board, charts=True)
    packed = Board.pack(data)
    read = Board.unpack(packed)
    # the encoder's output reads back as the very data it was given (no NaN became null),
    # and the standard library reads the same bytes alike
    assert read == data
    assert json.loads(zlib.decompress(packed)) == data
    return from_data(read)


def _cells(board: Leaderboard) -> list[tuple]:
    return [cell for c in board.conditions for r in c.rows for cell in r.cells]


def _dstc11_phase(split: bool):
    """Two conditions on ``GOLD``, the third on ``NOTHING``; three teams (one anonymous, one a
    baseline) each with ``PREDICTION`` (or nothing predicted) on every condition."""
    extra = {"split_fraction": 0.5, "split_seed": 3} if split else {}
    phase = PhaseFactory(challenge=ChallengeFactory(scorer_options=OPTIONS), **extra)
    for order, key in enumerate(KEYS):
        condition = ConditionFactory(phase=phase, key=key, label=key.title(), order=order)
        gold = NOTHING if key == KEYS[-1] else GOLD
        add_reference(condition, json.dumps(gold).encode(), "gold.json")
    for method, content, kind in (
        ("Tracker A", PREDICTION, {"url": "https://example.org/a", "method_description": "A"}),
        ("Nothing", NOTHING, {}),
        ("Copy baseline", PREDICTION, {"is_baseline": True}),
    ):
        team = approved_team(phase)
        if method == "Nothing":
            team.anonymous = True
            team.save()
        scored_submission(team, phase, method, content=content, build=False, **kind)
    return type(phase).objects.select_related("challenge").get(pk=phase.pk)


@pytest.mark.parametrize("part", ["public", "private"])
def test_a_dstc11_board_with_an_undefined_metric_reads_back_as_built(part):
    phase = _dstc11_phase(split=part == "private")
    board = compute(phase, part)
    # what the board shows undefined: SER on the third condition, without an interval
    last = board.conditions[-1]
    assert [r.cells[1] for r in last.rows] == [(None, None, None)] * 3
    assert all(cell[0] is not None for r in last.rows for cell in r.cells[:1])
    if part == "private":
        assert board.shakeups and board.shakeups[0].tau is None  # too few entries to correlate
    assert _stored(board) == dataclasses.replace(board, version="")


TASKS = {
    "multiwoz22": (
        MWZ_GOLD,
        {"schema": (json.dumps(SCHEMA).encode(), "schema.json")},
        (MWZ_PERFECT, MWZ_PARTIAL, MWZ_EMPTY),
    ),
    "dvd": (DVD_GOLD, None, (DVD_PERFECT, DVD_PARTIAL, DVD_EMPTY)),
}


@pytest.mark.parametrize("task", sorted(TASKS))
def test_a_board_of_the_other_tasks_reads_back_as_built(client, task):
    gold, files, predictions = TASKS[task]
    phase = make_phase(task, json.dumps(gold).encode(), files)
    for n, prediction in enumerate(predictions):
        submit_through_the_page(client, phase, prediction, f"run {n}")
    board = compute(type(phase).objects.select_related("challenge").get(pk=phase.pk))
    if task == "multiwoz22":
        # the requested-slot F1: no requested slot in the reference, so no value, no interval
        at = [c.name for c in board.columns].index("requested_f1")
        assert {r.cells[at] for r in board.conditions[0].rows} == {(None, None, None)}
    assert _stored(board) == dataclasses.replace(board, version="")


def test_each_entry_is_stored_once_and_its_rows_refer_to_it():
    board = compute(_dstc11_phase(split=False))
    data = serialise(board)
    assert data["format"] == FORMAT == 4
    ids = {r.submission_id for c in board.conditions for r in c.rows}
    assert set(data["entries"]) == {str(i) for i in ids}
    for row in [r for c in data["conditions"] for r in c["rows"]] + data["overview"]:
        assert "team_name" not in row and "method_name" not in row and "submitted_at" not in row
    (anonymous,) = [e for e in data["entries"].values() if e["team_id"] is None]
    assert anonymous["team_slug"] == "" and anonymous["method_description"] == ""
    # the readers' exports get each row with its entry's facts, as before
    shown = expanded(data)
    assert "entries" not in shown
    rows = {r["submission_id"]: r for r in shown["conditions"][0]["rows"]}
    for row in board.conditions[0].rows:
        assert rows[row.submission_id]["team_name"] == row.team_name
        assert rows[row.submission_id]["method_url"] == row.method_url
        assert rows[row.submission_id]["submitted_at"] == row.submitted_at.isoformat()


def test_statistics_that_are_not_numbers_are_stored_as_none():
    nan, inf = math.nan, math.inf
    board = Leaderboard(
        phase_id=1,
        primary_metric="jga",
        conditions=(ConditionBoard(1, "test", "Test", (), detectable=nan),),
        part="private",
        overview=(),
        columns=(Column("jga", "JGA", "higher", True), Column("ser", "SER", "lower")),
        shakeups=(
            Shakeup("overview", "Overview", (Move(7, None, 1, nan, 50.0),), tau=inf, rho=0.5),
        ),
    )
    data = serialise(board)
    assert data["conditions"][0]["detectable"] is None
    (shakeup,) = data["shakeups"]
    assert shakeup["tau"] is None and shakeup["rho"] == 0.5
    assert shakeup["moves"][0]["public"] is None and shakeup["moves"][0]["private"] == 50.0
    assert Board.unpack(Board.pack(data)) == data
    read = from_data(data)
    assert read.conditions[0].detectable is None and read.shakeups[0].tau is None


def test_a_new_snapshot_is_published_in_format_3_and_its_fingerprint_is_of_its_data():
    board = compute(_dstc11_phase(split=False))
    data = publishable(board)
    assert data["format"] == 4 and data == json.loads(json.dumps(data))
    assert fingerprint(data) == fingerprint(json.loads(json.dumps(data)))
    assert from_data(data) == dataclasses.replace(board, version="")


#: A published snapshot's data as the code before format 3 made it (format 2: every row with
#: its entry's facts), on a phase split 0.5 with two teams, the second anonymous at the reveal.
FORMAT_2 = json.loads(
    """\
{"format":2,"phase_id":1,"part":"private","primary_metric":"jga","task":"dstc11","columns":[{"name\
":"jga","label":"JGA","direction":"higher","primary":true},{"name":"ser","label":"SER","direction"\
:"lower","primary":false}],"conditions":[{"condition_id":1,"key":"tts-verbatim","label":"Tts-Verba\
tim","rows":[{"rank":1,"team_id":1,"team_name":"Team 0","team_slug":"team-0","submission_id":1,"me\
thod_name":"Tracker A","method_url":"https://example.org/a","method_description":"A cascade","is_b\
aseline":false,"submitted_at":"2026-12-04T17:29:25.159400+00:00","signature":"dstc11|norm:default|\
missing:reject|ci:bootstrap-200-dialogue-95|seed:12345|gold:sha256:4cd63e34|v:0.2.0","submissions"\
:1,"group":"1\u20132","cells":[[100.0,100.0,100.0],[0.0,0.0,0.0]],"rank_low":1,"rank_high":2},{"ra\
nk":2,"team_id":null,"team_name":"Anonymous team 8ZQRBT","team_slug":"","submission_id":2,"method_\
name":"Tracker B","method_url":"","method_description":"","is_baseline":false,"submitted_at":"2026\
-12-04T17:29:25.252459+00:00","signature":"dstc11|norm:default|missing:reject|ci:bootstrap-200-dia\
logue-95|seed:12345|gold:sha256:4cd63e34|v:0.2.0","submissions":1,"group":"1\u20132","cells":[[100\
.0,100.0,100.0],[0.0,0.0,0.0]],"rank_low":1,"rank_high":2}],"note":"","detectable":null,"detectabl\
e_note":"No detectable difference: the entries next to each other here are identical dialogue by d\
ialogue, so they show nothing of how much scores vary."},{"condition_id":2,"key":"human-verbatim",\
"label":"Human-Verbatim","rows":[{"rank":1,"team_id":1,"team_name":"Team 0","team_slug":"team-0","\
submission_id":1,"method_name":"Tracker A","method_url":"https://example.org/a","method_descriptio\
n":"A cascade","is_baseline":false,"submitted_at":"2026-12-04T17:29:25.159400+00:00","signature":"\
dstc11|norm:default|missing:reject|ci:bootstrap-200-dialogue-95|seed:12345|gold:sha256:4cd63e34|v:\
0.2.0","submissions":1,"group":"1\u20132","cells":[[100.0,100.0,100.0],[0.0,0.0,0.0]],"rank_low":1\
,"rank_high":2},{"rank":2,"team_id":null,"team_name":"Anonymous team 8ZQRBT","team_slug":"","submi\
ssion_id":2,"method_name":"Tracker B","method_url":"","method_description":"","is_baseline":false,\
"submitted_at":"2026-12-04T17:29:25.252459+00:00","signature":"dstc11|norm:default|missing:reject|\
ci:bootstrap-200-dialogue-95|seed:12345|gold:sha256:4cd63e34|v:0.2.0","submissions":1,"group":"1\
\u20132","cells":[[100.0,100.0,100.0],[0.0,0.0,0.0]],"rank_low":1,"rank_high":2}],"note":"","detec\
table":null,"detectable_note":"No detectable difference: the entries next to each other here are i\
dentical dialogue by dialogue, so they show nothing of how much scores vary."},{"condition_id":3,"\
key":"human-paraphrased","label":"Human-Paraphrased","rows":[{"rank":1,"team_id":1,"team_name":"Te\
am 0","team_slug":"team-0","submission_id":1,"method_name":"Tracker A","method_url":"https://examp\
le.org/a","method_description":"A cascade","is_baseline":false,"submitted_at":"2026-12-04T17:29:25\
.159400+00:00","signature":"dstc11|norm:default|missing:reject|ci:bootstrap-200-dialogue-95|seed:1\
2345|gold:sha256:4cd63e34|v:0.2.0","submissions":1,"group":"1\u20132","cells":[[100.0,100.0,100.0]\
,[0.0,0.0,0.0]],"rank_low":1,"rank_high":2},{"rank":2,"team_id":null,"team_name":"Anonymous team 8\
ZQRBT","team_slug":"","submission_id":2,"method_name":"Tracker B","method_url":"","method_descript\
ion":"","is_baseline":false,"submitted_at":"2026-12-04T17:29:25.252459+00:00","signature":"dstc11|\
norm:default|missing:reject|ci:bootstrap-200-dialogue-95|seed:12345|gold:sha256:4cd63e34|v:0.2.0",\
"submissions":1,"group":"1\u20132","cells":[[100.0,100.0,100.0],[0.0,0.0,0.0]],"rank_low":1,"rank_\
high":2}],"note":"","detectable":null,"detectable_note":"No detectable difference: the entries nex\
t to each other here are identical dialogue by dialogue, so they show nothing of how much scores v\
ary."}],"overview":[{"rank":1,"team_id":1,"team_name":"Team 0","team_slug":"team-0","submission_id\
":1,"method_name":"Tracker A","method_url":"https://example.org/a","method_description":"A cascade\
","is_baseline":false,"submitted_at":"2026-12-04T17:29:25.159400+00:00","per_condition":{"tts-verb\
atim":[100.0,0.0],"human-verbatim":[100.0,0.0],"human-paraphrased":[100.0,0.0]},"submissions":1,"c\
hange":0.0,"means":[100.0,0.0],"cells":{"tts-verbatim":[[100.0,100.0,100.0],[0.0,0.0,0.0]],"human-\
verbatim":[[100.0,100.0,100.0],[0.0,0.0,0.0]],"human-paraphrased":[[100.0,100.0,100.0],[0.0,0.0,0.\
0]]},"groups":{"tts-verbatim":"1\u20132","human-verbatim":"1\u20132","human-paraphrased":"1\u20132\
"},"rank_low":1,"rank_high":2},{"rank":1,"team_id":null,"team_name":"Anonymous team 8ZQRBT","team_\
slug":"","submission_id":2,"method_name":"Tracker B","method_url":"","method_description":"","is_b\
aseline":false,"submitted_at":"2026-12-04T17:29:25.252459+00:00","per_condition":{"tts-verbatim":[\
100.0,0.0],"human-verbatim":[100.0,0.0],"human-paraphrased":[100.0,0.0]},"submissions":1,"change":\
0.0,"means":[100.0,0.0],"cells":{"tts-verbatim":[[100.0,100.0,100.0],[0.0,0.0,0.0]],"human-verbati\
m":[[100.0,100.0,100.0],[0.0,0.0,0.0]],"human-paraphrased":[[100.0,100.0,100.0],[0.0,0.0,0.0]]},"g\
roups":{"tts-verbatim":"1\u20132","human-verbatim":"1\u20132","human-paraphrased":"1\u20132"},"ran\
k_low":1,"rank_high":2}],"reported":[],"shakeups":[{"key":"overview","label":"Overview (mean over \
the conditions)","moves":[{"submission_id":1,"public_rank":1,"private_rank":1,"public":50.0,"priva\
te":100.0},{"submission_id":2,"public_rank":1,"private_rank":1,"public":50.0,"private":100.0}],"ta\
u":null,"tau_low":null,"tau_high":null,"rho":null,"rho_low":null,"rho_high":null,"mean_shift":50.0\
,"mean_rank_change":0.0},{"key":"tts-verbatim","label":"Tts-Verbatim","moves":[{"submission_id":1,\
"public_rank":1,"private_rank":1,"public":50.0,"private":100.0},{"submission_id":2,"public_rank":1\
,"private_rank":2,"public":50.0,"private":100.0}],"tau":null,"tau_low":null,"tau_high":null,"rho":\
null,"rho_low":null,"rho_high":null,"mean_shift":50.0,"mean_rank_change":0.5},{"key":"human-verbat\
im","label":"Human-Verbatim","moves":[{"submission_id":1,"public_rank":1,"private_rank":1,"public"\
:50.0,"private":100.0},{"submission_id":2,"public_rank":1,"private_rank":2,"public":50.0,"private"\
:100.0}],"tau":null,"tau_low":null,"tau_high":null,"rho":null,"rho_low":null,"rho_high":null,"mean\
_shift":50.0,"mean_rank_change":0.5},{"key":"human-paraphrased","label":"Human-Paraphrased","moves\
":[{"submission_id":1,"public_rank":1,"private_rank":1,"public":50.0,"private":100.0},{"submission\
_id":2,"public_rank":1,"private_rank":2,"public":50.0,"private":100.0}],"tau":null,"tau_low":null,\
"tau_high":null,"rho":null,"rho_low":null,"rho_high":null,"mean_shift":50.0,"mean_rank_change":0.5\
}],"shakeup_note":"","ladder":false}
"""
)


def test_a_snapshot_of_format_2_still_reads_back():
    board = from_data(FORMAT_2)
    rows = board.conditions[0].rows
    assert [(r.rank, r.team_name, r.method_name) for r in rows] == [
        (1, "Team 0", "Tracker A"),
        (2, "Anonymous team 8ZQRBT", "Tracker B"),
    ]
    first, hidden = rows
    assert (first.team_id, first.team_slug, first.submission_id) == (1, "team-0", 1)
    assert (first.method_url, first.method_description) == ("https://example.org/a", "A cascade")
    assert first.submitted_at == dt.datetime(2026, 12, 4, 17, 29, 25, 159400, tzinfo=dt.UTC)
    assert (hidden.team_id, hidden.team_slug) == (None, "")
    assert first.cells == ((100.0, 100.0, 100.0), (0.0, 0.0, 0.0)) and first.group == "1\u20132"
    assert (first.rank_low, first.rank_high, first.submissions) == (1, 2, 1)
    assert board.conditions[0].detectable is None and board.conditions[0].detectable_note
    (overview, _) = board.overview
    assert overview.means == (100.0, 0.0) and overview.change == 0.0
    assert [s.key for s in board.shakeups] == ["overview", *KEYS]
    assert board.shakeups[0].moves[0] == Move(1, 1, 1, 50.0, 100.0)
    assert board.shakeups[0].mean_shift == 50.0
    assert "chart-shakeup" in board.charts  # drawn again from the rows
    # the readers' exports show it as stored
    assert expanded(FORMAT_2) is FORMAT_2
    # written again in format 3 it reads back the same board
    again = serialise(board)
    assert again["format"] == 4 and len(again["entries"]) == 2
    assert from_data(Board.unpack(Board.pack(again))) == board


def test_a_board_stored_before_format_3_still_reads_back():
    """A stored board as the standard library's encoder wrote it (format 2, with charts)."""
    data = {**FORMAT_2, "charts": from_data(FORMAT_2).charts}
    text = json.dumps(data, cls=DjangoJSONEncoder, separators=(",", ":"))
    packed = zlib.compress(text.encode(), 1)
    assert Board.unpack(packed) == json.loads(text)
    assert from_data(Board.unpack(packed)) == from_data(FORMAT_2)
