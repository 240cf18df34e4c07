"""What the challenge page tells participants about a task: its accepted prediction formats,
with a short example of each, every setting the scorer runs with, and the command that
reproduces a score locally with those settings; and how to upload without the web form (the
client's and the API's command, ``ways_in``).

All come from the task's description (``scoring.Task``): the formats it accepts, its options
and the files its reference needs besides the gold. The examples are keyed by format name.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse

from leaderboard.challenges.models import RESAMPLING_KEYS, Challenge, Phase, ReferenceFile
from scoring import Resampling
from scoring.cli import FILE_FLAGS, OPTION_FLAGS, OPTION_HELP

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
#: The bootstrap settings as the challenge page names and explains them.
RESAMPLING_TEXT = {
    "n_boot": ("Bootstrap resamples", "resamples of the dialogues behind each interval"),
    "level": ("Confidence level", "coverage of the intervals"),
    "seed": ("Seed", "seed of the resampling: the same seed gives the same intervals"),
}


@dataclass(frozen=True)
class Setting:
    """One setting the scorer runs with for this challenge, as the challenge page lists it."""

    label: str
    flag: str
    value: str
    default: str
    choices: tuple[str, ...]
    meaning: str


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


def settings(challenge: Challenge) -> list[Setting]:
    """Every option of the challenge's task and every bootstrap setting, with the value this
    challenge scores with, the default and the command-line flag that sets it."""
    task = challenge.scoring_task()
    options = challenge.task_options()
    rows = [
        Setting(
            o.label,
            OPTION_FLAGS.get(o.name, ""),
            options[o.name],
            o.default,
            o.choices,
            o.description or OPTION_HELP.get(o.name, ""),
        )
        for o in task.options
    ]
    chosen, default = challenge.resampling(), Resampling()
    rows += [
        Setting(
            RESAMPLING_TEXT[name][0],
            RESAMPLING_FLAGS[name],
            str(getattr(chosen, name)),
            str(getattr(default, name)),
            (),
            RESAMPLING_TEXT[name][1],
        )
        for name in RESAMPLING_KEYS
    ]
    return rows


def local_command(challenge: Challenge, program: str = "python -m scoring") -> str:
    """``python -m scoring score`` (or the ``trackboard-score`` script) with the task, the
    reference files the task needs (and the optional ones the challenge's references have),
    and every option and bootstrap setting spelled out with the challenge's value, so the
    command gives the site's numbers whatever the defaults."""
    task = challenge.scoring_task()
    parts = [f"{program} score", f"--task {task.name}", "--gold gold.json"]
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
    parts += [f"{s.flag} {s.value}" for s in settings(challenge) if s.flag]
    return " ".join(parts)


@dataclass(frozen=True)
class WaysIn:
    """How to take part in a phase without the web form, as two copyable commands."""

    phase: Phase
    cli: str
    api: str


def ways_in(phase: Phase, site: str) -> WaysIn:
    """The client's and the API's upload commands for ``phase`` on the site at ``site``
    (``https://host``), with one file per condition named after its key."""
    target = f"{phase.challenge.slug}/{phase.slug}"
    keys = [c.key for c in phase.conditions.all()] or ["CONDITION"]
    files = " ".join(f"--file {key}={key}.json" for key in keys)
    cli = f'TRACKBOARD_URL={site} trackboard submit {target} {files} --method "My tracker" --wait'
    fields = " ".join(f"-F {key}=@{key}.json" for key in keys)
    url = site + reverse("api:submit", args=[phase.pk])
    api = (
        f'curl -H "Authorization: Bearer $TRACKBOARD_TOKEN" -F method_name="My tracker" '
        f"{fields} {url}"
    )
    return WaysIn(phase, cli, api)
