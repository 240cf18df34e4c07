"""A Result's per-dialogue statistics as stored arrays (``submissions.ratios``): each array in
the narrowest type that holds it exactly, read back in place, and every stored Result moved
from the JSON lists to the arrays (and back) by the migration, with the same numbers."""

from __future__ import annotations

import json

import numpy as np
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader

from leaderboard.submissions import ratios
from leaderboard.submissions.models import Result, Submission
from scoring.synth import make_gold
from tests.leaderboard.factories import TeamFactory, phase_with_references

BEFORE = [("submissions", "0002_submission_notified_status")]
AFTER = [("submissions", "0003_result_ratios")]


@pytest.mark.parametrize(
    ("values", "dtype"),
    [
        ([0, 5, 255], np.uint8),
        ([0, 256], np.uint16),
        ([-1, 127], np.int8),
        ([-129, 3], np.int16),
        ([0, 70_000], np.uint32),
        ([-70_000, 1], np.int32),
        ([2.0, 3.0], np.uint8),  # whole numbers written as floats are whole numbers
        ([0.5, 1], np.float64),
        ([2**40], np.float64),
        ([], np.uint8),
    ],
)
def test_each_array_takes_the_narrowest_type_that_holds_its_values_exactly(values, dtype):
    stored = ratios.narrowest(values)
    assert stored.dtype == dtype
    assert stored.tolist() == values


def test_stored_statistics_read_back_as_the_same_numbers_without_a_copy():
    columns = {
        "jga": ([1, 0, 3], [2, 4, 3]),
        "ser": ([0.5, 2, 0], [4, 4, 1]),
        "f1": ([-1, 300, 7], [70_000, 0.001, 2]),
        "empty": ([], []),
    }
    data = ratios.encode(columns)
    # 3 one-byte counts take 8 bytes with their padding, plus an 8-byte header
    assert len(ratios.encode({"jga": columns["jga"]})) == 8 + 2 * (8 + 8)
    found = ratios.decode(data)
    assert {m: (n.tolist(), d.tolist()) for m, (n, d) in found.items()} == columns
    for numerators, denominators in found.values():
        for array in (numerators, denominators):
            assert not array.flags.owndata and array.flags.aligned and not array.flags.writeable
    assert ratios.decode(b"") == {} and ratios.decode(None) == {}


def test_the_primary_statistics_name_their_metric():
    data = ratios.encode({"ser": ([1], [2])})
    assert ratios.primary(data, "jga") is None
    numerators, denominators = ratios.primary(data, "ser")
    assert (numerators.tolist(), denominators.tolist()) == ([1], [2])


#: two Results as they were stored before the migration
OLD = [
    {
        "ids": ["d1", "d2", "d3"],
        "columns": {"jga": [[1, 0, 3], [2, 4, 3]], "ser": [[0.5, 2, 0], [4, 4, 1]]},
        "turns": ["10", "0000", "111"],
    },
    {
        "ids": ["d1", "d2", "d3"],
        "columns": {"jga": [[2, 4, 0], [2, 4, 3]], "ser": [[300, 0, 1], [4, 4, 1]]},
        "turns": ["11", "1111", "000"],
    },
]


def _migrate(targets: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


def _latest() -> list[tuple[str, str]]:
    """The app's newest migration, where the other tests expect the schema."""
    return MigrationLoader(connection).graph.leaf_nodes("submissions")


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_the_lists_to_arrays_and_back_with_the_same_numbers():
    phase = phase_with_references(json.dumps(make_gold(3, seed=1)).encode(), keys=("a", "b"))
    phase.challenge.primary_metric = "ser"
    phase.challenge.save()
    submission = Submission.objects.create(team=TeamFactory(), phase=phase, method_name="m")
    for condition, stored in zip(phase.conditions.order_by("order"), OLD, strict=True):
        Result.objects.create(
            submission=submission,
            condition=condition,
            reference=condition.references.get(),
            signature="old",
            dialogues=stored,
        )
    try:
        # The rows above are in the old shape: with the old schema, the migration converts them.
        _migrate(BEFORE)
        _migrate(AFTER)
        # read as the schema is at this migration (later ones add columns)
        after_result = (
            MigrationLoader(connection).project_state(AFTER).apps.get_model("submissions", "Result")
        )
        rows = list(after_result.objects.order_by("condition__order"))
        for row, old in zip(rows, OLD, strict=True):
            assert row.dialogues == {"ids": old["ids"], "turns": old["turns"]}
            found = ratios.decode(row.ratios)
            assert {m: [n.tolist(), d.tolist()] for m, (n, d) in found.items()} == old["columns"]
            # the challenge ranks SER
            numerators, denominators = ratios.primary(row.primary_ratios, "ser")
            assert [numerators.tolist(), denominators.tolist()] == old["columns"]["ser"]
        assert ratios.decode(rows[1].ratios)["ser"][0].dtype == np.uint16  # 300

        _migrate(BEFORE)
        old_apps = MigrationLoader(connection).project_state(BEFORE).apps
        old_result = old_apps.get_model("submissions", "Result")
        back = list(old_result.objects.order_by("condition__order").values_list("dialogues"))
        assert [d for (d,) in back] == OLD
    finally:
        # back to every app's latest migration, for the tests that follow
        _migrate(MigrationLoader(connection).graph.leaf_nodes())
