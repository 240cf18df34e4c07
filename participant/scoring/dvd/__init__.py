"""The ``dvd`` task: DVD-DST object states and temporal segments. See
:mod:`scoring.dvd.data` (formats) and :mod:`scoring.dvd.metrics` (definitions)."""

from __future__ import annotations

from scoring.dvd.task import TASK

__all__ = ["TASK"]
