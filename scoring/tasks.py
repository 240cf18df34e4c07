"""The task registry: every scoring task by name.

The web side and the command line look a task up here and use only its description
(:meth:`Task.describe`: formats, metrics with directions, primary metric, options, reference
files) and its three functions, which return a :class:`~scoring.taskapi.TaskResult`::

    from scoring.tasks import get_task, run
    task = get_task("multiwoz22")
    result = run(task, gold, prediction, files={"schema": schema}, options={"match": "fuzzy"})
    result.metrics(), result.intervals(), result.signature, result.as_dict(per_dialogue=True)
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from scoring.errors import ScoringError

if TYPE_CHECKING:  # the command line imports this module for the names alone
    from scoring.results import Statistics
    from scoring.taskapi import Resampling, Source, Task, TaskResult

#: Each task's module, imported on first use: a run of one task does not pay for loading the
#: others (fuzzy matching, schema handling) at start-up.
_MODULES = {
    "dstc11": "scoring.dstc11.task",
    "multiwoz22": "scoring.multiwoz22.task",
    "dvd": "scoring.dvd.task",
}
NAMES = tuple(_MODULES)


class _Registry(Mapping[str, "Task"]):
    def __getitem__(self, name: str) -> Task:
        module = _MODULES[name]  # KeyError for an unknown name, as a Mapping should
        task: Task = importlib.import_module(module).TASK
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


def run(
    task: Task,
    gold: Source,
    prediction: Source,
    files: Mapping[str, Source] | None = None,
    options: Mapping[str, str] | None = None,
    resampling: Resampling | None = None,
    statistics: Statistics | None = None,
) -> TaskResult:
    """Load a reference and a prediction and score them, checking options and files first."""
    checked = task.check_options(options)
    extra = dict(files or {})
    known = {f.name for f in task.reference_files}
    unknown = sorted(set(extra) - known)
    if unknown:
        raise ScoringError(f"task {task.name!r} takes no reference file(s) {', '.join(unknown)}.")
    for spec in task.reference_files:
        if spec.required and spec.name not in extra:
            raise ScoringError(f"task {task.name!r} needs a {spec.label} file ({spec.name}).")
    if resampling is None:
        from scoring.taskapi import Resampling

        resampling = Resampling()
    resampling.check()
    reference = task.load_reference(gold, extra, checked)
    loaded = task.load_prediction(prediction, reference, checked)
    return task.score(reference, loaded, checked, resampling, statistics)


__all__ = ["NAMES", "TASKS", "get_task", "run"]
