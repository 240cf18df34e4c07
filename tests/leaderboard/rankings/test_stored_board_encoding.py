"""The stored board's JSON (``Board.pack``): written by orjson, it reads back (``Board.unpack``)
exactly as the standard library's encoder's JSON did; what orjson would write otherwise (a
float that is not finite: orjson writes null) is written by that encoder, and boards stored
before read back as they did."""

from __future__ import annotations

import datetime as dt
import json
import math
import zlib
from dataclasses import replace
from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.utils.functional import lazy

from leaderboard.challenges.models import Phase
from leaderboard.demo import dstc11, other_tasks
from leaderboard.rankings import models
from leaderboard.rankings.compute import compute
from leaderboard.rankings.models import Board
from leaderboard.rankings.serialised import from_data, serialise
from tests.leaderboard.factories import approved_team, phase_with_references
from tests.leaderboard.web import GOLD_BYTES, scored_submission

pytestmark = pytest.mark.django_db


def _old_pack(data: dict[str, Any]) -> bytes:
    """How boards were stored before: the standard library's encoder."""
    text = json.dumps(data, cls=DjangoJSONEncoder, separators=(",", ":"))
    return zlib.compress(text.encode(), 1)


def _same(a: Any, b: Any) -> bool:
    """Equal, NaN equal to NaN (``==`` never holds for NaN read back twice)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return set(a) == set(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def test_every_demo_board_reads_back_as_the_standard_librarys_json_did():
    dstc11.build()
    other_tasks.build()
    boards = 0
    for phase in Phase.objects.select_related("challenge"):
        for kind in ("public", "private"):
            data = serialise(compute(phase, kind), charts=True)
            assert models._orjson(data) is not None  # written by orjson, not the fallback
            assert Board.unpack(Board.pack(data)) == Board.unpack(_old_pack(data))
            boards += 1
    assert boards >= 6


def test_dates_decimals_and_lazy_strings_are_written_as_djangos_encoder_writes_them():
    data = {
        "at": dt.datetime(2026, 5, 1, 12, 30, 15, 123456, tzinfo=dt.UTC),
        "day": dt.date(2026, 5, 1),
        "took": dt.timedelta(seconds=90),
        "figure": Decimal("75.10"),
        "label": lazy(lambda: "Test", str)(),
        "nested": [(1, 2.5, None, True, "é")],
    }
    assert models._orjson(data) is not None
    assert Board.unpack(Board.pack(data)) == Board.unpack(_old_pack(data))
    assert Board.unpack(Board.pack(data))["at"] == "2026-05-01T12:30:15.123Z"


@pytest.mark.parametrize("odd", [math.nan, math.inf, -math.inf])
def test_a_board_with_a_float_that_is_not_finite_reads_back_as_before(odd):
    phase = phase_with_references(GOLD_BYTES)
    scored_submission(approved_team(phase), phase)
    board = compute(Phase.objects.select_related("challenge").get(pk=phase.pk))
    condition = board.conditions[0]
    (row,) = condition.rows
    cells = ((row.cells[0][0], odd, odd), *row.cells[1:])  # an interval of NaN or infinities
    odd_board = replace(
        board,
        conditions=(replace(condition, rows=(replace(row, cells=cells),)), *board.conditions[1:]),
    )
    data = serialise(odd_board, charts=True)
    assert models._orjson(data) is None  # orjson would write null: the standard library's
    found = Board.unpack(Board.pack(data))
    assert _same(found, Board.unpack(_old_pack(data)))
    low, high = found["conditions"][0]["rows"][0]["cells"][0][1:]
    assert _same([low, high], [odd, odd])


def test_what_orjson_refuses_is_written_by_the_standard_librarys_encoder():
    for data in ({"ids": {1: "a"}}, {"big": 2**70}, {"np": [np.float64(1.5)]}):
        assert models._orjson(data) is None
        assert Board.unpack(Board.pack(data)) == Board.unpack(_old_pack(data))
    with pytest.raises(TypeError):  # refused by both, as before
        Board.pack({"what": object()})


def test_the_stored_board_lists_each_rows_facts_once_and_reads_back_the_same_board():
    """Each row's entry (team, method, time ...) and signature are stored once and referred
    to; read back (``from_data``), the board is the one built, field for field: the demos of
    the three tasks (DSTC11's three conditions) and a split phase's final board."""
    dstc11.build()
    other_tasks.build()
    split = phase_with_references(GOLD_BYTES, split_fraction=0.5)
    for team in (approved_team(split), approved_team(split)):
        scored_submission(team, split, build=False)
    tasks, boards = set(), 0
    for phase in Phase.objects.select_related("challenge"):
        for kind in ("public", "private"):
            board = compute(phase, kind)
            data = serialise(board, charts=True)
            stored = Board.pack(data)
            shared = json.loads(zlib.decompress(stored))
            entries = shared[models._TABLES]["~entry"]
            shown = {r["submission_id"] for rows in models._row_lists(data) for r in rows}
            assert len(entries) == len(shown)  # one per submission shown, whatever its rows
            assert all("team_name" not in r for rows in models._row_lists(shared) for r in rows)
            assert Board.unpack(stored) == Board.unpack(_old_pack(data))
            assert from_data(Board.unpack(stored)) == replace(board, version="")
            tasks.add(phase.challenge.task)
            boards += 1
            if kind == "private" and phase.pk == split.pk:
                assert board.shakeups and len(board.conditions) == 3
    assert len(tasks) == 3 and boards >= 8


def test_a_board_stored_before_reads_back_as_it_did():
    phase = phase_with_references(GOLD_BYTES)
    scored_submission(approved_team(phase), phase)
    board = compute(Phase.objects.select_related("challenge").get(pk=phase.pk))
    data = serialise(board, charts=True)
    assert Board.unpack(_old_pack(data)) == json.loads(json.dumps(data, cls=DjangoJSONEncoder))
    assert from_data(Board.unpack(_old_pack(data))) == replace(board, version="")
