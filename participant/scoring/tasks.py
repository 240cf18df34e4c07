"""The task registry: every scoring task by name.

The web side and the command line look a task up here and use only its description
(:meth:`Task.describe`: formats, metrics with directions, primary metric and tie-breaker,
options, reference files) and its methods, which return a :class:`~scoring.taskapi.TaskResult`::

    from scoring import Source, get_task
    task = get_task("multiwoz22")
    reference = task.load_reference(Source(gold, "gold.json"), {"schema": schema})
    prediction = task.load_prediction(Source(data, "run.json"), reference)
    result = task.score(reference, prediction, {"match": "fuzzy"})
    result.metrics(), result.intervals(), result.signature, result.as_dict(per_dialogue=True)

A task's module is imported when the task is first asked for, so a run of one task does not
load the others (fuzzy matching, schema handling).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from scoring.errors import ScoringError
from scoring.taskapi import Task

_MODULES = {
    "dstc11": "scoring.dstc11.task",
    "multiwoz22": "scoring.multiwoz22.task",
    "dvd": "scoring.dvd.task",
}
NAMES = tuple(_MODULES)


class _Registry(Mapping[str, Task]):
    def __getitem__(self, name: str) -> Task:
        task: Task = importlib.import_module(_MODULES[name]).TASK
        return task

    def __iter__(self) -> Iterator[str]:
        return iter(_MODULES)

    def __len__(self) -> int:
        return len(_MODULES)


TASKS: Mapping[str, Task] = _Registry()


def get_task(name: str) -> Task:
    """The task called ``name``; an unknown name raises ScoringError."""
    if name not in _MODULES:
        raise ScoringError(f"unknown task {name!r}; choose one of: " + ", ".join(_MODULES))
    return TASKS[name]


__all__ = ["NAMES", "TASKS", "get_task"]
