"""The CSV-formula guard every CSV file of the site writes its cells through."""

from __future__ import annotations

import pytest

from leaderboard.spreadsheets import spreadsheet_safe


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("=HYPERLINK(1)", "'=HYPERLINK(1)"),
        ("+1", "'+1"),
        ("-2", "'-2"),
        ("@cmd", "'@cmd"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
    ],
)
def test_a_cell_a_spreadsheet_would_run_starts_with_a_quote(value, written):
    assert spreadsheet_safe(value) == written


@pytest.mark.parametrize(
    ("value", "written"),
    [("Team Alpha", "Team Alpha"), ("a=b", "a=b"), ("", ""), (17, "17"), ("'quoted", "'quoted")],
)
def test_any_other_cell_is_written_as_it_is(value, written):
    assert spreadsheet_safe(value) == written
