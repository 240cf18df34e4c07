"""Declared system facts: what a challenge asks every submission to say about its system
(``Challenge.system_facts``), e.g. the ASR system used or the model's size, so the boards can
show, filter and chart submissions by them.

A declaration is a mapping ``{key, label, kind, required, choices, unit, help}``: ``key`` a
slug (the field's name in uploads, ``fact.<key>``, and in board filters), ``kind`` one of
``text``, ``choice`` (``choices``: the allowed values), ``number`` (``unit``: what it counts,
e.g. ``billion``) or ``flag`` (yes/no). ``declaration_problems`` checks a list of them (the
config file and the admin alike); ``check_facts`` checks what an upload gives (the web form,
the API and so the command-line client, and ``intake.submit``), one message per field naming
it by label and key.

Declarations may change after submissions exist: a submission keeps the values it was sent
with. A board shows the declared keys only (the stored value of a key no longer declared is
kept, not shown); a field made required, or added, is blank on earlier submissions (only new
uploads must give it); a stored value no longer among a choice's choices shows as stored.
Organisers correct a submission's values in the admin.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.text import slugify

from scoring import TASKS

KINDS = ("text", "choice", "number", "flag")
KEYS = ("key", "label", "kind", "required", "choices", "unit", "help")
#: the longest text value a submission may give (a text fact is a name, not an essay)
LONGEST_TEXT = 200
#: how a flag is written in an upload (any case)
YES, NO = ("yes", "true", "1", "on"), ("no", "false", "0", "off")


@dataclass(frozen=True)
class Fact:
    """One declared field, as ``declared`` reads it from a checked declaration."""

    key: str
    label: str
    kind: str
    required: bool = False
    choices: tuple[str, ...] = ()
    unit: str = ""
    help: str = ""

    @property
    def name(self) -> str:
        """How a message names the field: its label and key."""
        return f"{self.label} ({self.key})"

    @property
    def heading(self) -> str:
        """A column's heading: the label, with the unit of a number."""
        return f"{self.label} ({self.unit})" if self.unit else self.label

    @property
    def filterable(self) -> bool:
        """Whether a board may be filtered by its value (a number is charted instead)."""
        return self.kind != "number"

    def data(self) -> dict[str, Any]:
        """The declaration as JSON-ready data (as a board stores and the API gives it)."""
        return {
            "key": self.key,
            "label": self.label,
            "kind": self.kind,
            "required": self.required,
            "choices": list(self.choices),
            "unit": self.unit,
            "help": self.help,
        }


#: keys a fact may not take: the columns the leaderboard's CSV downloads (the readers' and the
#: API's) already have, and every metric of every task with its interval's bounds
RESERVED = frozenset(
    {
        "board", "shows", "condition", "rank", "rank_low", "rank_high", "group", "team",
        "team_slug", "method", "submission_id", "submitted_at", "submissions", "baseline",
        "public_rank", "rank_change", "public_score", "score_shift", "statistic",
        "statistic_value", "statistic_low", "statistic_high", "signature", "source",
    }
    | {f"{m.name}{end}" for task in TASKS.values() for m in task.metrics
       for end in ("", "_low", "_high")}
)  # fmt: skip


def declaration_problems(value: Any) -> list[str]:
    """Every problem of a list of declarations, each naming where: ``[n].field: problem``
    (empty when nothing is wrong)."""
    if value in (None, ""):
        return []
    if not isinstance(value, list):
        return ["give a list of fields, each a mapping with key, label and kind"]
    problems: list[str] = []
    keys: set[str] = set()
    for n, spec in enumerate(value):
        at = f"[{n}]"
        if not isinstance(spec, dict):
            problems.append(f"{at}: expected a mapping with key, label and kind")
            continue
        unknown = sorted(map(str, set(spec) - set(KEYS)))
        if unknown:
            problems.append(
                f"{at}: unknown key(s) {', '.join(map(repr, unknown))}; known keys are: "
                + ", ".join(KEYS)
            )
        key = spec.get("key")
        if not isinstance(key, str) or not key or slugify(key) != key or len(key) > 40:
            problems.append(
                f"{at}.key: give a slug of at most 40 characters (lower-case letters, digits "
                f"and hyphens), not {key!r}"
            )
        elif key in keys:
            problems.append(f"{at}.key: {key!r} is the key of an earlier field")
        elif key in RESERVED:
            problems.append(
                f"{at}.key: {key!r} names a column the exports already have (a metric or a "
                "row's rank, team, method ...); choose another key"
            )
        else:
            keys.add(key)
        label = spec.get("label")
        if not isinstance(label, str) or not label.strip() or len(label) > 100:
            problems.append(f"{at}.label: give a text of 1 to 100 characters, not {label!r}")
        kind = spec.get("kind")
        if kind not in KINDS:
            problems.append(f"{at}.kind: {kind!r} is not one of: {', '.join(KINDS)}")
        if "required" in spec and not isinstance(spec["required"], bool):
            problems.append(f"{at}.required: give true or false, not {spec['required']!r}")
        choices = spec.get("choices")
        if kind == "choice":
            if (
                not isinstance(choices, list)
                or not choices
                or not all(isinstance(c, str) and c.strip() for c in choices)
            ):
                problems.append(f"{at}.choices: give a list of the allowed values (texts)")
            elif len(set(choices)) != len(choices):
                problems.append(f"{at}.choices: a value is listed twice")
        elif choices is not None:
            problems.append(f"{at}.choices: only a field of kind choice has choices")
        unit = spec.get("unit")
        if unit is not None and (kind != "number" or not isinstance(unit, str)):
            problems.append(f"{at}.unit: only a field of kind number has a unit (a text)")
        if not isinstance(spec.get("help", ""), str):
            problems.append(f"{at}.help: give a text")
    return problems


def declared(value: Any) -> tuple[Fact, ...]:
    """The fields of a list of declarations (``Challenge.system_facts``); what is not a
    usable declaration is left out (the config and the admin refuse it before)."""
    if not isinstance(value, list) or declaration_problems(value):
        return ()
    return tuple(
        Fact(
            key=spec["key"],
            label=spec["label"],
            kind=spec["kind"],
            required=bool(spec.get("required", False)),
            choices=tuple(spec.get("choices") or ()),
            unit=spec.get("unit") or "",
            help=spec.get("help") or "",
        )
        for spec in value
    )


def _value(fact: Fact, raw: Any) -> tuple[Any, str]:
    """(the value as stored, what is wrong with ``raw`` for ``fact``: "" when nothing)."""
    if fact.kind == "number":
        if isinstance(raw, bool):
            return None, f"give a number, not {raw!r}"
        try:
            number = float(str(raw).strip()) if isinstance(raw, str) else float(raw)
        except (TypeError, ValueError):
            return None, f"give a number{_in(fact)}, not {str(raw)[:40]!r}"
        if not math.isfinite(number):
            return None, f"give a finite number{_in(fact)}, not {str(raw)[:40]!r}"
        return (int(number) if number.is_integer() else number), ""
    if fact.kind == "flag":
        if isinstance(raw, bool):
            return raw, ""
        word = str(raw).strip().lower()
        if word in YES or word in NO:
            return word in YES, ""
        return None, f"give yes or no, not {str(raw)[:40]!r}"
    text = str(raw).strip()
    if fact.kind == "choice":
        if text in fact.choices:
            return text, ""
        return None, f"{text[:40]!r} is not one of: {', '.join(fact.choices)}"
    if len(text) > LONGEST_TEXT:
        return None, f"at most {LONGEST_TEXT} characters (this one has {len(text)})"
    return text.replace("\x00", ""), ""


def _in(fact: Fact) -> str:
    return f" (in {fact.unit})" if fact.unit else ""


def check_facts(
    facts: tuple[Fact, ...], given: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, str]]:
    """(the values to store, key -> what is wrong) for what an upload ``given`` says, by key:
    a required field missing or empty, a value of the wrong kind, a key not declared. Every
    message names the field by its label and key. An empty optional field is left out."""
    by_key = {f.key: f for f in facts}
    values: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for key in given:
        if key not in by_key:
            known = ", ".join(by_key) or "none"
            problems[str(key)[:40]] = (
                f"{str(key)[:40]!r} is not a declared field of this challenge (its fields: {known})"
            )
    for fact in facts:
        raw = given.get(fact.key)
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            if fact.required:
                problems[fact.key] = f"{fact.name} is required: {_expected(fact)}"
            continue
        value, problem = _value(fact, raw)
        if problem:
            problems[fact.key] = f"{fact.name}: {problem}"
        else:
            values[fact.key] = value
    return values, problems


def _expected(fact: Fact) -> str:
    if fact.kind == "choice":
        return f"give one of: {', '.join(fact.choices)}"
    if fact.kind == "number":
        return f"give a number{_in(fact)}"
    if fact.kind == "flag":
        return "give yes or no"
    return "give a text"


def shown(fact: Fact, value: Any) -> str:
    """A stored value as a table cell shows it ("" when none)."""
    if value is None or value == "":
        return ""
    if fact.kind == "flag":
        return "yes" if value else "no"
    return str(value)
