"""The guard every CSV file of the site writes its cells through (the reader exports, the API's
CSV renderer, a result's per-turn correctness, the manifest of the organisers' zips).

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or a carriage
return, which some strip first) as a formula: CSV injection. Team, method and file names are
chosen by participants, so such a cell is written with a leading ``'``, which spreadsheets show
as text."""

from __future__ import annotations

from typing import Any

#: What a cell may not start with.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: Any) -> str:
    """``value`` as text a spreadsheet shows and never runs: ``'=1+1`` for ``=1+1``."""
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text
