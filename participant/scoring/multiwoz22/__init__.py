"""The ``multiwoz22`` task: MultiWOZ 2.2 / Schema-Guided DST with a schema and multi-reference
gold values. See :mod:`scoring.multiwoz22.data` (formats) and
:mod:`scoring.multiwoz22.metrics` (definitions)."""

from __future__ import annotations

from scoring.multiwoz22.task import TASK

__all__ = ["TASK"]
