"""What the challenge page tells participants about a task: its accepted prediction formats,
with a short example of each, and the command that reproduces a score locally.

Both come from the task's description (``scoring.Task``): the formats it accepts, its options
and the files its reference needs besides the gold. The examples are keyed by format name.
"""

from __future__ import annotations

from dataclasses import dataclass

from leaderboard.challenges.models import RESAMPLING_KEYS, Challenge, ReferenceFile
from scoring import Resampling
from scoring.cli import FILE_FLAGS, OPTION_FLAGS

#: format name -> (what it is, a short example)
EXAMPLES = {
    "gold-json": (
        "the shape of the published gold files",
        '{"mul0003": [{"hotel": {"area": "north"}}, '
        '{"hotel": {"area": "north", "bookday": "monday"}}]}',
    ),
    "mwz-wrapper": (
        "the MultiWOZ-evaluation wrapper, one object with a state per user turn",
        '{"mul0003": [{"response": "...", "state": {"hotel": {"area": "north"}}}]}',
    ),
    "manifest": (
        "DSTC11 manifest lines; user turns carry the state",
        "line_nr: 1 dialog_id: mul0003.json turn_id: 0 text: user: i need a hotel in the "
        "north state: hotel-area=north",
    ),
    "sgd-dialogues": (
        "the reference's own dialogue list; only user turns count",
        '[{"dialogue_id": "MUL0003.json", "turns": [{"speaker": "USER", "frames": '
        '[{"service": "hotel", "state": {"active_intent": "find_hotel", '
        '"requested_slots": [], "slot_values": {"hotel-area": ["north"]}}}]}]}]',
    ),
    "flat-states": (
        "one state per user turn with the schema's slot names (no intents)",
        '{"MUL0003": [{"hotel-area": "north"}, {"hotel-area": "north", "hotel-name": "acorn"}]}',
    ),
    "token-sequence": (
        "each state a string of frame and object tokens",
        '{"dvd-1": ["<frame12> <frame48> <obj3> SIZE large COLOR red"]}',
    ),
    "dvd-json": (
        "the reference's own shape: a segment and objects per turn",
        '{"dvd-1": [{"segment": [12, 48], "objects": {"3": {"size": "large", "color": "red"}}}]}',
    ),
}

#: Example file names for the reference files in the command shown.
FILE_NAMES = {"schema": "schema.json", "training_values": "training-values.json"}
RESAMPLING_FLAGS = {"n_boot": "--bootstrap", "level": "--level", "seed": "--seed"}


@dataclass(frozen=True)
class Format:
    name: str
    title: str
    example: str


def formats(challenge: Challenge) -> list[Format]:
    """The formats the challenge's task accepts, each with its example where there is one."""
    return [
        Format(name, *EXAMPLES.get(name, ("", ""))) for name in challenge.scoring_task().formats
    ]


def local_command(challenge: Challenge) -> str:
    """``python -m scoring score`` with the task, the reference files the task needs (and
    the optional ones the challenge's references have), and every option and bootstrap
    setting where the challenge differs from the default."""
    task = challenge.scoring_task()
    parts = ["python -m scoring score", f"--task {task.name}", "--gold gold.json"]
    used = set(
        ReferenceFile.objects.filter(
            reference__condition__phase__challenge=challenge, reference__active=True
        ).values_list("name", flat=True)
    )
    parts += [
        f"{FILE_FLAGS[f.name]} {FILE_NAMES[f.name]}"
        for f in task.reference_files
        if (f.required or f.name in used) and f.name in FILE_FLAGS
    ]
    parts.append("--pred predictions.json")
    options = challenge.task_options()
    parts += [
        f"{OPTION_FLAGS[o.name]} {options[o.name]}"
        for o in task.options
        if options[o.name] != o.default and o.name in OPTION_FLAGS
    ]
    chosen, default = challenge.resampling(), Resampling()
    parts += [
        f"{RESAMPLING_FLAGS[name]} {getattr(chosen, name)}"
        for name in RESAMPLING_KEYS
        if getattr(chosen, name) != getattr(default, name)
    ]
    return " ".join(parts)
