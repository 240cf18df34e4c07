"""Create a challenge from a YAML or JSON description (the ``create_challenge`` command).

Shape (paths of reference files are relative to the config file)::

    challenge: {slug, title, description, data, evaluation, rules, terms (Markdown pages),
                task, primary_metric, registration,
                max_team_size, scorer_options: {<the task's options>, n_boot, level, seed},
                system_facts: [{key, label, kind, required, choices, unit, help}],
                organisers: [username]}
    phases:
      - {name, slug, order, opens_at, closes_at, daily_quota, total_quota, allow_partial,
         results_visibility, split_fraction, split_seed, max_final_selections,
         show_own_public_score, ladder, team_chooses_public_run,
         conditions: [{key, label, order, reference: path, <a reference file of the task>: path}]}

``task`` names a task of ``scoring`` (``dstc11``, ``multiwoz22``, ``dvd``); ``primary_metric``
one of its metrics (empty: the task's own). ``scorer_options`` holds the task's options (its
``Task.options``, e.g. ``profile`` and ``missing`` for dstc11, ``match`` for multiwoz22) and
the bootstrap's ``n_boot`` (whole number, 1-100000), ``level`` (0.5 to below 1) and ``seed``
(whole number); what is left out takes the scorer's default. ``system_facts`` declares what
each submission says about its system (``challenges.facts``). A condition names
the gold file (``reference``) and the task's other reference files by their names in the task
(``multiwoz22`` needs a ``schema``; a task with seen/unseen support takes an optional
``training_values`` list). Every key and value is checked before anything is written
(``check_config``, which is also the command's ``--dry-run``): an unknown key, an unknown
organiser, a value outside its choices or range, each reported naming its key.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.text import slugify

import scoring
from leaderboard.challenges import audit, roles
from leaderboard.challenges.facts import declaration_problems
from leaderboard.challenges.models import RESAMPLING_KEYS, Challenge, Condition, Phase
from leaderboard.challenges.references import ExtraFiles, check_reference, summarise
from leaderboard.challenges.services import add_reference
from leaderboard.storage import sha256_of
from scoring import NAMES, get_task

CHALLENGE_FIELDS = (
    "title",
    "description",
    "data",
    "evaluation",
    "rules",
    "terms",
    "task",
    "primary_metric",
    "registration",
    "scorer_options",
    "max_team_size",
    "system_facts",
)
PHASE_FIELDS = (
    "daily_quota",
    "total_quota",
    "allow_partial",
    "results_visibility",
    "split_fraction",
    "split_seed",
    "max_final_selections",
    "show_own_public_score",
    "ladder",
    "team_chooses_public_run",
    "revealed",
)

CONDITION_FIELDS = ("key", "label", "order", "reference")


class ConfigError(ValueError):
    """The config file cannot be used; the message says which field and why."""


def load_config(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise ConfigError(
            f"{path.name}: not valid {'JSON' if path.suffix == '.json' else 'YAML'}: {exc}"
        ) from exc
    if not isinstance(data, dict) or not isinstance(data.get("challenge"), dict):
        raise ConfigError(f"{path.name}: expected a mapping with a 'challenge' section")
    return data


def scoring_problems(challenge: Challenge) -> dict[str, list[str]]:
    """What is wrong with ``challenge``'s task, ranked metric and scorer options, by field
    name, every problem of a field at once, one message each (empty when nothing is wrong): the
    checks of ``create_challenge`` and of the admin. A scorer option's message names it."""
    try:
        task = challenge.scoring_task()
    except scoring.ScoringError as exc:
        return {"task": [str(exc)]}
    problems: dict[str, list[str]] = {}
    names = [m.name for m in task.metrics]
    if challenge.primary_metric and challenge.primary_metric not in names:
        problems["primary_metric"] = [
            f"{challenge.primary_metric!r} is not a metric of task {task.name!r}; "
            f"choose one of: {', '.join(names)} (or leave it empty for {task.primary!r})"
        ]
    options = challenge.scorer_options
    if options is None:
        options = {}
    if not isinstance(options, dict):
        problems["scorer_options"] = ["give a mapping of option names to values"]
        return problems
    found = []
    allowed = [o.name for o in task.options] + list(RESAMPLING_KEYS)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        found.append(
            f"unknown option(s) {', '.join(map(repr, unknown))} for task {task.name!r}; "
            f"the options are: {', '.join(allowed)}"
        )
    found += task.option_problems(challenge.task_options_given())
    default = scoring.Resampling()
    wrong = scoring.resampling_problems(
        options.get("n_boot", default.n_boot),
        options.get("level", default.level),
        options.get("seed", default.seed),
    )
    found += [f"{name} {what}" for name, what in wrong.items()]
    if found:
        problems["scorer_options"] = found
    return problems


def _unknown(given: dict[str, Any], known: Any, where: str) -> list[str]:
    extra = sorted(map(str, set(given) - set(known)))
    if not extra:
        return []
    names = ", ".join(dict.fromkeys(known))  # each once: "title" is listed twice in some
    return [f"{where}: unknown key(s) {', '.join(map(repr, extra))}; known keys are: {names}"]


def _when(value: Any, field: str) -> dt.datetime:
    parsed: dt.datetime | None
    if isinstance(value, dt.datetime):
        parsed = value
    elif isinstance(value, dt.date):
        parsed = dt.datetime.combine(value, dt.time())
    else:
        parsed = parse_datetime(str(value)) if value is not None else None
    if parsed is None:
        raise ConfigError(f"{field}: {value!r} is not a date-time (use ISO 8601)")
    return parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed, dt.UTC)


# --- one value each: return what is wrong with it (empty: nothing) --------------------------


def _text(value: Any, longest: int | None = None, *, required: bool = False) -> str:
    if not isinstance(value, str):
        return f"give a text, not {value!r}"
    if required and not value.strip():
        return "must not be empty"
    if longest is not None and len(value) > longest:
        return f"at most {longest} characters (this one has {len(value)})"
    return ""


def _slug(value: Any, longest: int) -> str:
    problem = _text(value, longest, required=True)
    if problem:
        return problem
    if slugify(value) != value:
        return (
            f"{value!r} is not a slug: lower-case letters, digits and hyphens, "
            f"e.g. {slugify(value)!r}"
        )
    return ""


def _whole(value: Any, least: int | None = None, *, empty_means: str = "") -> str:
    if value is None and empty_means:
        return ""
    if isinstance(value, bool) or not isinstance(value, int):
        rule = "a whole number" + (f" of at least {least}" if least is not None else "")
        return f"give {rule}, not {value!r}" + (
            f" (leave it out for {empty_means})" if empty_means else ""
        )
    if least is not None and value < least:
        rule = f"must be at least {least}, not {value}"
        return rule + (f" (leave it out for {empty_means})" if empty_means else "")
    return ""


def _flag(value: Any) -> str:
    return "" if isinstance(value, bool) else f"give true or false, not {value!r}"


def _choice(value: Any, choices: Any) -> str:
    names = [c for c, _ in choices]
    if value in names:
        return ""
    return f"{value!r} is not one of: {', '.join(names)}"


def _fraction(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        return (
            f"give the share of dialogues on the public board, above 0 and at most 1 (1: no "
            f"split), not {value!r}"
        )
    return ""


CHALLENGE_CHECKS = {
    "title": lambda v: _text(v, 200, required=True),
    "description": _text,
    "data": _text,
    "evaluation": _text,
    "rules": _text,
    "terms": _text,
    "primary_metric": lambda v: _text(v, 32),
    "registration": lambda v: _choice(v, Challenge.Registration.choices),
    "max_team_size": lambda v: _whole(v, 1, empty_means="no limit"),
}
PHASE_CHECKS = {
    "name": lambda v: _text(v, 100, required=True),
    "slug": lambda v: _slug(v, 50),
    "order": lambda v: _whole(v, 0),
    "daily_quota": lambda v: _whole(v, 1, empty_means="no limit"),
    "total_quota": lambda v: _whole(v, 1, empty_means="no limit"),
    "allow_partial": _flag,
    "results_visibility": lambda v: _choice(v, Phase.Visibility.choices),
    "split_fraction": _fraction,
    "split_seed": lambda v: _whole(v),
    "max_final_selections": lambda v: _whole(v, 1),
    "show_own_public_score": _flag,
    "ladder": _flag,
    "team_chooses_public_run": _flag,
    "revealed": _flag,
}

#: Why a phase cannot use the Ladder without a split (the config file and the admin alike).
LADDER_NEEDS_SPLIT = (
    "the Ladder ranks the public part of a split: set split_fraction below 1, or leave ladder out"
)
#: Why a phase with the Ladder cannot let teams choose their public run: the Ladder decides
#: which run each row shows (the config file and the admin alike).
CHOICE_NOT_WITH_LADDER = (
    "with the Ladder, the Ladder decides which run represents a team on the public board: "
    "turn ladder off, or leave team_chooses_public_run out"
)
CONDITION_CHECKS = {
    "key": lambda v: _slug(v, 64),
    "label": lambda v: _text(v, 100, required=True),
    "order": lambda v: _whole(v, 0),
    "reference": lambda v: _text(v, required=True),
}


def _check(spec: dict[str, Any], checks: dict[str, Any], where: str) -> list[str]:
    """Every problem of ``spec``'s values, each naming its key: ``where.key: problem``."""
    return [
        f"{where}.{key}: {problem}"
        for key, check in checks.items()
        if key in spec and (problem := check(spec[key]))
    ]


@dataclass(frozen=True)
class PlannedReference:
    """A reference file a condition names, read and checked with the scorer."""

    phase: str
    condition: str
    name: str
    sha256: str
    summary: dict[str, Any]

    def describe(self) -> str:
        """``test / tts-verbatim: gold.json: 2 dialogues, 4 turns, 3 slots; sha256 ...``"""
        counts = [
            f"{self.summary.get('dialogues')} dialogues",
            f"{self.summary.get('turns')} turns",
        ]
        for key in ("slots", "services"):
            if key in self.summary:
                counts.append(f"{len(self.summary[key])} {key}")
        if "slot_values" in self.summary:
            counts.append(f"{self.summary['slot_values']} slot values")
        extra = "".join(f"; {k}: {v}" for k, v in sorted(self.summary.get("files", {}).items()))
        return (
            f"{self.phase} / {self.condition}: {self.name}: {', '.join(counts)}{extra}; "
            f"sha256 {self.sha256}"
        )


@dataclass(frozen=True)
class Plan:
    """What ``create_challenge`` would create: every value checked, every reference read."""

    slug: str
    phases: list[str]
    references: list[PlannedReference]
    organisers: list[str]


def check_config(config: dict[str, Any], base_dir: Path) -> Plan:
    """Check every key and value of ``config`` and every reference file with the scorer, and
    say what would be created; writes nothing.

    Raises ``ConfigError`` naming each wrong key (all of them, one per line) or
    ``scoring.ScoringError`` for a reference the scorer refuses."""
    spec = config["challenge"]
    known: tuple[str, ...] = ("slug", "title", *CHALLENGE_FIELDS, "organisers", "phases")
    problems = _unknown(spec, known, "challenge") + _check(spec, CHALLENGE_CHECKS, "challenge")
    problems += [
        f"challenge.system_facts{'' if problem.startswith('[') else ': '}{problem}"
        for problem in declaration_problems(spec.get("system_facts"))
    ]
    if "title" not in spec:
        problems.append("challenge.title: required")
    slug = spec.get("slug") if "slug" in spec else slugify(str(spec.get("title") or ""))
    slug_problem = _slug(slug, 50)
    if slug_problem:
        problems.append(f"challenge.slug: {slug_problem}")
    elif Challenge.objects.filter(slug=slug).exists():
        problems.append(f"challenge.slug: a challenge {slug!r} already exists; pick another slug")
    organisers = spec.get("organisers", [])
    if not isinstance(organisers, list) or not all(isinstance(u, str) for u in organisers):
        problems.append("challenge.organisers: give a list of user names")
        organisers = []
    found = set(
        get_user_model().objects.filter(username__in=organisers).values_list("username", flat=True)
    )
    missing = [u for u in organisers if u not in found]
    if missing:
        problems.append(
            f"challenge.organisers: no user {', '.join(map(repr, missing))}; "
            "create the account(s) first (createsuperuser, or sign-up and the admin)"
        )
    draft = Challenge(slug=slug, **{k: spec[k] for k in CHALLENGE_FIELDS if k in spec})
    if not isinstance(spec.get("task", ""), str):
        problems.append(f"challenge.task: give a task's name, not {spec['task']!r}")
        found_scoring: dict[str, list[str]] = {"task": ["not a name"]}
    else:
        found_scoring = scoring_problems(draft)
        problems += [f"challenge.{k}: {v}" for k, vs in found_scoring.items() for v in vs]
    files = (
        [] if "task" in found_scoring else [f.name for f in draft.scoring_task().reference_files]
    )
    phases = config.get("phases") or spec.get("phases") or []
    if not isinstance(phases, list) or not phases:
        problems.append("phases: at least one phase is required")
        phases = []
    seen_slugs: set[str] = set()
    planned: list[tuple[int, int, Path]] = []
    extras: dict[tuple[int, int], ExtraFiles] = {}
    for p, phase in enumerate(phases):
        where = f"phases[{p}]"
        if not isinstance(phase, dict):
            problems.append(f"{where}: expected a mapping")
            continue
        known = ("name", "slug", "order", "opens_at", "closes_at", *PHASE_FIELDS, "conditions")
        problems += _unknown(phase, known, where) + _check(phase, PHASE_CHECKS, where)
        fraction = phase.get("split_fraction", 1.0)
        if phase.get("ladder") is True and not _fraction(fraction) and fraction >= 1:
            problems.append(f"{where}.ladder: {LADDER_NEEDS_SPLIT}")
        if phase.get("ladder") is True and phase.get("team_chooses_public_run") is True:
            problems.append(f"{where}.team_chooses_public_run: {CHOICE_NOT_WITH_LADDER}")
        phase_slug = phase.get("slug") or slugify(str(phase.get("name") or f"phase-{p + 1}"))
        if phase_slug in seen_slugs:
            problems.append(f"{where}.slug: {phase_slug!r} is the slug of an earlier phase")
        seen_slugs.add(str(phase_slug))
        try:
            opens = _when(phase.get("opens_at"), f"{where}.opens_at")
            closes = _when(phase.get("closes_at"), f"{where}.closes_at")
        except ConfigError as exc:
            problems.append(str(exc))
        else:
            if closes <= opens:
                problems.append(f"{where}.closes_at: must be after opens_at")
        conditions = phase.get("conditions")
        if not isinstance(conditions, list) or not conditions:
            problems.append(f"{where}.conditions: at least one condition is required")
            continue
        keys: set[str] = set()
        for c, condition in enumerate(conditions):
            at = f"{where}.conditions[{c}]"
            if not isinstance(condition, dict):
                problems.append(f"{at}: expected a mapping")
                continue
            problems += _unknown(condition, (*CONDITION_FIELDS, *files), at)
            if "key" not in condition:
                problems.append(f"{at}.key: required")
            problems += _check(condition, CONDITION_CHECKS, at)
            if condition.get("key") in keys:
                problems.append(f"{at}.key: {condition['key']!r} is already a key of this phase")
            keys.add(str(condition.get("key")))
            extra = {}
            for name in files:
                if condition.get(name):
                    extra_path = (base_dir / str(condition[name])).resolve()
                    if not extra_path.is_file():
                        problems.append(f"{at}.{name}: no file {extra_path}")
                    else:
                        extra[name] = (extra_path.read_bytes(), extra_path.name)
            extras[(p, c)] = extra
            if isinstance(condition.get("reference"), str) and condition["reference"]:
                path = (base_dir / condition["reference"]).resolve()
                if not path.is_file():
                    problems.append(f"{at}.reference: no file {path}")
                else:
                    planned.append((p, c, path))
    if problems:
        raise ConfigError("\n".join(problems))

    references: list[PlannedReference] = []
    for p, c, path in planned:
        data = path.read_bytes()
        extra_files = extras[(p, c)]
        loaded = check_reference(draft, data, path.name, extra_files)  # raises ScoringError
        phase = phases[p]
        references.append(
            PlannedReference(
                phase=str(phase.get("slug") or slugify(str(phase.get("name") or f"phase-{p + 1}"))),
                condition=str(phases[p]["conditions"][c]["key"]),
                name=path.name,
                sha256=sha256_of(data),
                summary=summarise(loaded, path.name, extra_files),
            )
        )
    phase_slugs = [
        str(ph.get("slug") or slugify(str(ph.get("name") or f"phase-{p + 1}")))
        for p, ph in enumerate(phases)
    ]
    return Plan(slug=str(slug), phases=phase_slugs, references=references, organisers=organisers)


def create_challenge(config: dict[str, Any], base_dir: Path, plan: Plan | None = None) -> Challenge:
    """Check everything (``check_config``, references included; ``plan`` when the caller
    just did) first, then create the challenge.

    Raises ``ConfigError`` (or ``scoring.ScoringError`` for a bad reference) before writing
    anything when the config is wrong or the slug is taken.
    """
    plan = plan or check_config(config, base_dir)
    spec = config["challenge"]
    phases = config.get("phases") or spec.get("phases") or []
    files = [f.name for f in get_task(spec.get("task", NAMES[0])).reference_files]
    users = get_user_model().objects.filter(username__in=plan.organisers)
    pending: list[tuple[Condition, Path, ExtraFiles]] = []
    created_phases: list[int] = []
    with transaction.atomic():
        challenge = Challenge.objects.create(
            slug=plan.slug, **{k: spec[k] for k in CHALLENGE_FIELDS if k in spec}
        )
        for user in users:
            # listed, staff and in the "Organisers" group, as ``add_organiser`` makes them
            roles.grant(challenge, user, actor_name="operator (create_challenge)")
        audit.record(
            challenge, "challenge-created", actor_name="operator (create_challenge)",
            subject=challenge.slug,
            after={"phases": list(plan.phases), "organisers": sorted(plan.organisers)},
        )  # fmt: skip
        for p, phase in enumerate(phases):
            created = Phase.objects.create(
                challenge=challenge,
                name=phase.get("name", f"phase {p + 1}"),
                slug=plan.phases[p],
                order=phase.get("order", p),
                opens_at=_when(phase["opens_at"], "opens_at"),
                closes_at=_when(phase["closes_at"], "closes_at"),
                **{k: phase[k] for k in PHASE_FIELDS if k in phase},
            )
            created_phases.append(created.pk)
            for c, condition in enumerate(phase["conditions"]):
                row = Condition.objects.create(
                    phase=created,
                    key=condition["key"],
                    label=condition.get("label", condition["key"]),
                    order=condition.get("order", c),
                )
                if condition.get("reference"):
                    path = (base_dir / condition["reference"]).resolve()
                    extra: ExtraFiles = {
                        name: ((base_dir / condition[name]).resolve().read_bytes(),
                               (base_dir / condition[name]).resolve().name)
                        for name in files
                        if condition.get(name)
                    }  # fmt: skip
                    pending.append((row, path, extra))
        # their (empty) boards are built for the challenge's first readers
        Phase.changed(*created_phases)
    # Storage writes stay outside the transaction above; add_reference has its own.
    for condition, path, extra in pending:
        add_reference(condition, path.read_bytes(), path.name, extra)
    return challenge
